import ArgumentParser
import Foundation

// MARK: - Checks shared by the commands' `validate()`

/// Throws "`option` must be from A to B`unit`." unless `value` is in `range`: every numeric
/// option of `serve` and `relay` says its bounds the same way.
func requireInRange(_ value: Int, _ range: ClosedRange<Int>, option: String, unit: String = "") throws {
    guard range.contains(value) else {
        throw ValidationError("\(option) must be from \(range.lowerBound) to \(range.upperBound)\(unit).")
    }
}

/// `--public`: a folder that exists and can be read (checked before any port is opened).
func requireReadableFolder(_ path: String) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
          FileManager.default.isReadableFile(atPath: path)
    else { throw ValidationError("--public \(path) is not a readable folder.") }
}
