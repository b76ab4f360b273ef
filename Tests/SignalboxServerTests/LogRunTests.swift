import Foundation
import SignalboxModel
@testable import SignalboxStore
import Testing

/// How delivery-log lines are grouped into runs, and which runs are indexed by event.
@Suite struct LogRunTests {
    let at = Date(timeIntervalSince1970: 1_800_000_000)

    func line(_ token: String, event: String?, outcome: String = "delivered", at offset: Double = 0) -> DeliveryLogEntry {
        DeliveryLogEntry(
            appId: "a", token: token, pushType: "controls", eventId: event, installationId: event == nil ? nil : "i-\(token)",
            outcome: outcome, answer: DeliveryAnswer(status: outcome == "delivered" ? 200 : 410), attempt: 1, at: at.addingTimeInterval(offset)
        )
    }

    @Test func linesAreGroupedByWhatTheyShareInTheOrderGroupsFirstAppear() {
        let lines = [line("01", event: "e"), line("02", event: "e", outcome: "pruned"), line("03", event: "e"), line("04", event: "f"), line("05", event: "e", at: 0.002)]
        let runs = LogRun.runs(of: lines)
        #expect(runs.map { $0.lines.map(\.token) } == [["01", "03"], ["02"], ["04"], ["05"]])
        #expect(runs.allSatisfy { !$0.byEvent })
    }

    @Test func onlyARunOfEnoughLinesOfOneEventIsIndexedByEvent() {
        let enough = (0..<LogRun.largeEventLines).map { line(String(format: "%04d", $0), event: "e") }
        #expect(LogRun.runs(of: enough).map(\.byEvent) == [true])
        #expect(LogRun.runs(of: Array(enough.dropLast())).map(\.byEvent) == [false])
        // Direct pushes have no event to be found through.
        let direct = (0..<LogRun.largeEventLines).map { line(String(format: "%04d", $0), event: nil) }
        #expect(LogRun.runs(of: direct).map(\.byEvent) == [false])
    }
}
