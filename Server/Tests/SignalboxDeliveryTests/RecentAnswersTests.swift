import Foundation
@testable import SignalboxDelivery
import SignalboxModel
import Testing

/// An app whose tokens APNs nearly all refuses is misconfigured: from the tenth answer on, its suspects fail
/// without a strike, whatever else happens to its pushes meanwhile.
@Suite struct RecentAnswersTests {
    private func completions(_ app: String, _ results: [DeliveryResult]) -> [PushCompletion] {
        results.enumerated().map { index, result in
            PushCompletion(push: OutboxPush(
                id: "\(app)-\(index)", appId: app, eventId: "e", installationId: "i\(index)", token: "t\(index)", kind: .controls,
                environment: .production, payload: "{}", attempts: 0, eventCreatedAt: Date(timeIntervalSince1970: 0)
            ), result: result)
        }
    }

    private let suspect = DeliveryResult.suspect(reason: "DeviceTokenNotForTopic")

    @Test func fromTheTenthSuspectAnswerOnSuspectsFailWithoutAStrike() {
        let answers = RecentAnswers()
        let (first, firstApps) = answers.sparing(completions("a", Array(repeating: suspect, count: 9)))
        #expect(first.allSatisfy { $0.result == suspect } && firstApps.isEmpty, "nine answers are too few to judge")
        let (next, nextApps) = answers.sparing(completions("a", Array(repeating: suspect, count: 3)))
        #expect(next.allSatisfy { $0.result == .failed(reason: "DeviceTokenNotForTopic") })
        #expect(nextApps == ["a": "DeviceTokenNotForTopic"])
        #expect(answers.sparing(completions("b", [suspect])).completions == completions("b", [suspect]), "apps are judged apart")
    }

    @Test func retriesAndPostponementsAreNoAnswerAboutATokenButDeliveriesAre() {
        let answers = RecentAnswers()
        // Timeouts and a pause between the suspects (a loaded machine, a credentials pause) change nothing.
        let waits: [DeliveryResult] = Array(repeating: .retry(at: Date()), count: 5) + [.postpone(at: Date())]
        _ = answers.sparing(completions("a", Array(repeating: suspect, count: 5) + waits + Array(repeating: suspect, count: 5)))
        #expect(answers.sparing(completions("a", [suspect])).apps == ["a": "DeviceTokenNotForTopic"])
        // Deliveries show the topic is right: with 2 of 12 delivered, suspects are strikes again.
        _ = answers.sparing(completions("c", Array(repeating: suspect, count: 10) + [.delivered, .delivered]))
        #expect(answers.sparing(completions("c", [suspect])).completions.first?.result == suspect)
    }
}
