import Foundation
import Logging
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel

extension APIDependencies {
    /// Sends one push outside the outbox (`POST …/pushes`, the dashboard's test push) and logs its answer in the
    /// delivery log, so the token inspector shows it like the outbox's pushes.
    /// - Throws: `PushSender.Failure.invalid` for a payload without its type's required fields; what
    ///   `PushSender.send` throws (the attempt is logged first); `APIError` without a transport.
    package func sendDirect(
        appId: String, token: String, type: PushType, environment: APNsEnvironment, payload: [UInt8]?,
        priority: Priority?? = .none, expiration: Expiration?? = .none, collapseId: String? = nil
    ) async throws -> APNsClient.Result {
        // A push APNs would accept and the device would drop (a File Provider signal without `domain`) is refused
        // before anything is sent.
        guard let bytes = payload ?? Payload.default(for: type) else {
            throw PushSender.Failure.invalid("payload is required for pushType \(type.rawValue): it has no default payload")
        }
        let missing = type.missingFields(in: bytes)
        guard missing.isEmpty else {
            throw PushSender.Failure.invalid("payload: a \(type.rawValue) push needs \(missing.joined(separator: ", "))")
        }
        guard let sender else {
            throw APIError(.serviceUnavailable, "apns_unavailable", "this server has no APNs transport configured")
        }
        do {
            let result = try await sender.send(
                appId: appId, token: token, type: type, environment: environment, payload: payload, priority: priority,
                expiration: expiration, collapseId: collapseId
            )
            await logDirect(appId: appId, token: token, type: type, outcome: result.outcome == .delivered ? .delivered : .failed, answer: DeliveryAnswer(
                status: result.response.status, reason: result.response.reason?.rawValue, apnsId: result.response.apnsId?.uuidString.lowercased()
            ))
            return result
        } catch let error as APNsTransportError {
            await logDirect(appId: appId, token: token, type: type, outcome: .failed, answer: DeliveryAnswer(reason: error.code.rawValue))
            throw error
        }
    }

    /// A log line that cannot be written does not fail the push that was sent.
    private func logDirect(appId: String, token: String, type: PushType, outcome: DeliveryOutcome, answer: DeliveryAnswer) async {
        try? await stores.deliveryLog.logDeliveries([
            DeliveryLogEntry(appId: appId, token: token, pushType: type.rawValue, eventId: nil, outcome: outcome, answer: answer, attempt: 1, at: now())
        ])
    }
}
