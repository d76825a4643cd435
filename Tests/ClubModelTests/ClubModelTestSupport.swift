import ClubModel
import Foundation

/// An instant written as ISO 8601 UTC ("2026-03-29T08:00:00Z"), read by Foundation's parser so
/// the expected values do not come from the code under test.
func utc(_ text: String) -> Millis {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) else { fatalError("bad test instant \(text)") }
    return Millis((date.timeIntervalSince1970 * 1_000).rounded())
}

func zone(_ name: String) -> ClubTime { ClubTime(timeZone: TimeZone(identifier: name)!) }

let hour: Millis = 3_600_000
let minute: Millis = 60_000
