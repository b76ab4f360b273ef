import Foundation
import Logging
import SignalboxServer
import Synchronization
import Testing

/// `LOG_FORMAT=json`'s handler: one JSON object per line with the logger's and the call's metadata.
struct JSONLogHandlerTests {
    @Test func writesOneSortedObjectPerLine() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "signalbox.test") { label in
            JSONLogHandler(
                label: label, write: { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } },
                now: { Date(timeIntervalSince1970: 1_795_476_040.5) }
            )
        }
        logger[metadataKey: "app"] = "a1"
        logger.warning("paused \"app\"", metadata: ["reasons": ["BadCertificate", "x"], "attempt": "\(3)"], source: "test")
        logger.debug("below the level")
        let written = lines.withLock { $0 }
        #expect(written == [
            #"{"label":"signalbox.test","level":"warning","message":"paused \"app\"","# +
            #""metadata":{"app":"a1","attempt":"3","reasons":["BadCertificate","x"]},"source":"test","# +
            #""time":"2026-11-23T23:20:40.500Z"}"# + "\n",
        ])
    }
}
