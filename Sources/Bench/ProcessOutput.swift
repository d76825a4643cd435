import Foundation

// Our own (small) helpers over Foundation's Process: the bench's children and its curl calls
// all read output the same way, so they share these two functions.

// MARK: - Lines of a child's output

/// Calls `body` with each complete line read from `handle` (without its newline) until end of
/// file; a last line with no newline is dropped, as the children always end theirs.
/// Reading to the end keeps the child from blocking on a full pipe.
func forEachLine(of handle: FileHandle, _ body: (String) -> Void) {
    var pending = Data()
    while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            body(line)
        }
    }
}

// MARK: - curl

/// Runs curl (`--silent`, stderr discarded) with `arguments`; returns its exit status and
/// everything it wrote, or nil when there is no curl or it cannot start.
func runCurl(_ arguments: [String]) -> (status: Int32, output: Data)? {
    let curl = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let curl else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: curl)
    process.arguments = ["--silent"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}
