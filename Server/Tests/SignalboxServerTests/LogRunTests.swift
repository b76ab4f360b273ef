import Foundation
import SignalboxModel
@testable import SignalboxStore
import Testing

/// How delivery-log lines are grouped into runs, which runs are packed, and where a prune by count cuts.
@Suite struct LogRunTests {
    let at = Date(timeIntervalSince1970: 1_800_000_000)

    func line(_ token: String, event: String?, outcome: DeliveryOutcome = .delivered, at offset: Double = 0) -> DeliveryLogEntry {
        DeliveryLogEntry(
            appId: "a", token: token, pushType: "controls", eventId: event, installationId: event == nil ? nil : "i-\(token)",
            outcome: outcome, answer: DeliveryAnswer(status: outcome == .delivered ? 200 : 410), attempt: 1, at: at.addingTimeInterval(offset)
        )
    }

    @Test func linesAreGroupedByWhatTheyShareInTheOrderGroupsFirstAppear() {
        let lines = [line("01", event: "e"), line("02", event: "e", outcome: .pruned), line("03", event: "e"), line("04", event: "f"), line("05", event: "e", at: 0.002)]
        let runs = LogRun.runs(of: lines)
        #expect(runs.map { $0.lines.map(\.token) } == [["01", "03"], ["02"], ["04"], ["05"]])
        #expect(runs.allSatisfy { !$0.packed })
    }

    @Test func onlyARunOfEnoughDeliveredLinesOfOneEventIsPacked() {
        func many(event: String?, outcome: DeliveryOutcome = .delivered, count: Int = LogRun.packedLines) -> [DeliveryLogEntry] {
            (0..<count).map { line(String(format: "%04d", $0), event: event, outcome: outcome) }
        }
        #expect(LogRun.runs(of: many(event: "e")).map(\.packed) == [true])
        #expect(LogRun.runs(of: many(event: "e", count: LogRun.packedLines - 1)).map(\.packed) == [false])
        // Failures stay rows, where the token's index finds them; direct pushes have no event.
        #expect(LogRun.runs(of: many(event: "e", outcome: .pruned)).map(\.packed) == [false])
        #expect(LogRun.runs(of: many(event: nil)).map(\.packed) == [false])
    }

    @Test func anInstallationRangeIsInBytewiseOrder() {
        let ids = ["b", "B", "é", "a-2", "a"]
        let lines = ids.map { DeliveryLogEntry(appId: "a", token: "aa", pushType: "controls", eventId: "e", installationId: $0, outcome: .delivered, answer: DeliveryAnswer(status: 200), attempt: 1, at: at) }
        let range = LogRun.installationRange(lines[...])
        // UTF-8 bytes: "B" (0x42) < "a" < "a-2" < "b" < "é" (0xC3 0xA9).
        #expect(range?.first == "B" && range?.last == "é")
    }

    /// Where the prune cuts, against a count over every line: rows and runs at assorted times, ties included.
    @Test(arguments: [0, 1, 3, 5, 9, 10, 12, 20, 29, 30, 31, 100])
    func theCountCutoffIsTheNewestLineBeyondTheKeptOnes(keep: Int) async throws {
        let rows: [Int64] = [100, 90, 90, 70, 50, 40, 40, 40, 20, 10].sorted(by: >)
        let runs: [(at: Int64, lines: Int)] = [(95, 3), (90, 2), (60, 5), (40, 4), (40, 1), (5, 5)]
        let every = (rows + runs.flatMap { Array(repeating: $0.at, count: $0.lines) }).sorted(by: >)
        let expected = keep < every.count ? every[keep] : nil
        let cutoff = LogCountCutoff(
            runs: runs,
            rowsAtOrAfter: { at in rows.filter { $0 >= at }.count },
            rowTime: { offset in offset < rows.count ? rows[offset] : nil }
        )
        #expect(try await cutoff.time(keep: keep) == expected)
    }
}
