import Foundation
import Logging
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel

extension APIDependencies {
    /// Sends one push outside the outbox (`POST …/pushes`, the dashboard's test push) and logs its answer in the
    /// delivery log, so the token inspector shows it like the outbox's pushes.
    /// - Throws: what `PushSender.send` throws (the attempt is logged first), `APIError` without a transport.
    func sendDirect(
        appId: String, token: String, type: PushType, environment: APNsEnvironment, payload: [UInt8]?,
        priority: Priority?? = .none, expiration: Expiration?? = .none, collapseId: String? = nil
    ) async throws -> APNsClient.Result {
        guard let sender else {
            throw APIError(.serviceUnavailable, "apns_unavailable", "this server has no APNs transport configured")
        }
        do {
            let result = try await sender.send(
                appId: appId, token: token, type: type, environment: environment, payload: payload, priority: priority,
                expiration: expiration, collapseId: collapseId
            )
            await logDirect(appId: appId, token: token, type: type, outcome: result.outcome == .delivered ? "delivered" : "failed", answer: DeliveryAnswer(
                status: result.response.status, reason: result.response.reason?.rawValue, apnsId: result.response.apnsId?.uuidString.lowercased()
            ))
            return result
        } catch let error as APNsTransportError {
            await logDirect(appId: appId, token: token, type: type, outcome: "failed", answer: DeliveryAnswer(reason: error.code.rawValue))
            throw error
        }
    }

    /// A log line that cannot be written does not fail the push that was sent.
    private func logDirect(appId: String, token: String, type: PushType, outcome: String, answer: DeliveryAnswer) async {
        try? await store.logDeliveries([
            DeliveryLogEntry(appId: appId, token: token, pushType: type.rawValue, eventId: nil, outcome: outcome, answer: answer, attempt: 1, at: now())
        ])
    }
}
