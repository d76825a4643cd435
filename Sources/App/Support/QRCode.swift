import CQREncode

/// QR codes of the spectator URL, drawn with libqrencode: an SVG for `/qr.svg` and the pages,
/// and half-block characters for the terminal banner.
enum QRCode {
    /// Modules, row by row; true is dark. nil when the text does not fit in a QR code.
    static func modules(for text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// The light margin scanners need around the code, in modules (ISO/IEC 18004 asks for 4).
    static let quietZone = 4

    /// A standalone SVG that scales to any size: one path, each row's runs of dark modules as
    /// one rectangle (a third of the bytes of one square per module).
    static func svg(for text: String) -> String? {
        guard let modules = modules(for: text) else { return nil }
        let size = modules.count + 2 * quietZone
        var path = ""
        for (row, line) in modules.enumerated() {
            var column = 0
            while column < line.count {
                guard line[column] else { column += 1; continue }
                let start = column
                while column < line.count, line[column] { column += 1 }
                path += "M\(start + quietZone) \(row + quietZone)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
        <rect width="\(size)" height="\(size)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
        """
    }

    /// Two module rows per text line. Light modules are full blocks, so a dark terminal shows
    /// dark modules on a light field, the way cameras expect.
    static func terminal(for text: String) -> String? {
        guard let modules = modules(for: text) else { return nil }
        let quiet = quietZone
        let width = modules.count + 2 * quiet
        func dark(_ row: Int, _ column: Int) -> Bool {
            let r = row - quiet, c = column - quiet
            guard r >= 0, c >= 0, r < modules.count, c < modules.count else { return false }
            return modules[r][c]
        }
        var lines: [String] = []
        for row in stride(from: 0, to: width, by: 2) {
            var line = "  "
            for column in 0..<width {
                switch (dark(row, column), dark(row + 1, column)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
