import Foundation
import SignalboxAPI
import Testing

/// Dates in API answers: ISO 8601 UTC with milliseconds, read back by the same module's decoder.
struct SignalboxJSONTests {
    struct Stamp: Codable, Equatable { var at: Date }

    @Test func encodesUTCWithMilliseconds() throws {
        let data = try SignalboxJSON.makeEncoder().encode(Stamp(at: Date(timeIntervalSince1970: 1_795_476_040.25)))
        #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2026-11-23T23:20:40.250Z"}"#)
    }

    @Test(arguments: [
        (#"{"at":"2026-11-23T23:20:40.250Z"}"#, 1_795_476_040.25),
        (#"{"at":"2026-11-23T23:20:40Z"}"#, 1_795_476_040),
    ])
    func decodesWithOrWithoutFraction(json: String, seconds: Double) throws {
        let stamp = try SignalboxJSON.makeDecoder().decode(Stamp.self, from: Data(json.utf8))
        #expect(abs(stamp.at.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test(arguments: [#"{"at":1795476040.25}"#, #"{"at":"yesterday"}"#])
    func refusesOtherDates(json: String) {
        #expect(throws: DecodingError.self) { try SignalboxJSON.makeDecoder().decode(Stamp.self, from: Data(json.utf8)) }
    }
}
