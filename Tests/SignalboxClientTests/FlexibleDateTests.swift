import Foundation
import Testing
@testable import SignalboxClient

/// Answers carry ISO 8601 dates, or seconds since 1970 from servers before the switch.
struct FlexibleDateTests {
    @Test(arguments: [
        #"{"domain":"d","container":"c","expiresAt":"2027-01-15T08:00:00Z"}"#,
        #"{"domain":"d","container":"c","expiresAt":"2027-01-15T08:00:00.000Z"}"#,
        #"{"domain":"d","container":"c","expiresAt":1800000000}"#,
    ])
    func leaseAnswersDecodeEitherForm(json: String) throws {
        let answer = try FlexibleDate.decoder().decode(LeaseAnswer.self, from: Data(json.utf8))
        // 2027-01-15T08:00:00Z is 1,800,000,000 s after 1970.
        #expect(answer.expiresAt == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func somethingElseIsAnError() {
        #expect(throws: DecodingError.self) {
            try FlexibleDate.decoder().decode(LeaseAnswer.self, from: Data(#"{"domain":"d","container":"c","expiresAt":"tomorrow"}"#.utf8))
        }
    }
}
