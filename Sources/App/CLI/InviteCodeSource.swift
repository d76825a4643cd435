import ArgumentParser
import Foundation

/// Where `gather serve` takes the invite code from: `--invite-code`, `--invite-code-file` or the
/// environment variable `GATHER_INVITE_CODE`. A command line is readable by every user of the
/// computer (`ps`, /proc/PID/cmdline); a file or the environment is not, so the help points there.
enum InviteCodeSource {
    static let environmentVariable = "GATHER_INVITE_CODE"
    /// A code is at most 64 characters; a file much longer than that is not a code file.
    static let fileLimit = 4096

    /// The option, else the file, else the environment (empty counts as unset), else nil for the
    /// kept or a new random code. Giving both the option and the file is refused: one would be ignored.
    static func resolve(option: String?, file: String?, environment: [String: String]) throws -> String? {
        if option != nil, file != nil {
            throw ValidationError("Give the invite code once: --invite-code or --invite-code-file, not both.")
        }
        if let option { return option }
        if let file { return try code(inFile: file) }
        return environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The code in `path`: the file's text without surrounding blanks and line ends (as `echo CODE
    /// > file` writes it). A file that is missing, not a regular file, larger than `fileLimit`, not
    /// UTF-8 or blank is refused with a sentence naming it.
    static func code(inFile path: String) throws -> String {
        // O_NONBLOCK: a FIFO in its place is refused below instead of waiting for a writer.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw ValidationError("--invite-code-file \(path) cannot be read: \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ValidationError("--invite-code-file \(path) is not a regular file.")
        }
        guard info.st_size <= fileLimit else {
            throw ValidationError("--invite-code-file \(path) is larger than \(fileLimit) bytes; it must hold only the code.")
        }
        var bytes = [UInt8](repeating: 0, count: fileLimit + 1)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else {
            throw ValidationError("--invite-code-file \(path) cannot be read: \(String(cString: strerror(errno))).")
        }
        guard count <= fileLimit else {
            throw ValidationError("--invite-code-file \(path) is larger than \(fileLimit) bytes; it must hold only the code.")
        }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            throw ValidationError("--invite-code-file \(path) is not text (UTF-8).")
        }
        let code = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else { throw ValidationError("--invite-code-file \(path) is empty; write the code in it.") }
        return code
    }
}
