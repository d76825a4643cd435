import ClubModel
import XCTest

final class LocalTimeTests: XCTestCase {
    func testParsesAndPrintsHHMM() {
        XCTAssertEqual(LocalTime("09:05"), LocalTime(hour: 9, minute: 5))
        XCTAssertEqual(LocalTime("23:59")?.description, "23:59")
        XCTAssertEqual(LocalTime(hour: 7, minute: 0).description, "07:00")
    }

    func testRefusesAnythingButHHMM() {
        for text in ["9:05", "24:00", "12:60", "12-00", "1200", " 12:00", "12:00 ", "ab:cd", "", "１２:００"] {
            XCTAssertNil(LocalTime(text), text)
        }
    }
}
