import Foundation
import SignalboxAPNs
import SignalboxModel

extension Dispatcher {
    /// A pause or resumption of an app to record for its webhooks after an answer (recording needs a task).
    struct LifecycleReport: Sendable {
        var kind: LifecycleEvent.Kind
        var appId: String
        var reason: String?
        var until: Date?
    }

    /// Starts one push without a task of its own (`PushSender.start`); what cannot finish at once (a wait, a second
    /// request, a webhook to record) goes to `sends` for a task. The push is already counted in `sends.started`.
    func start(_ push: OutboxPush, _ results: ResultBuffer, _ sends: TasklessSends) {
        let startedAt = now()
        sender.start(
            appId: push.appId, token: push.token, type: push.kind.pushType, environment: push.environment.apns, payload: Array(push.payload.utf8)
        ) { started in
            switch started {
            case .finished(let sent):
                var answer = DeliveryAnswer()
                var report: LifecycleReport?
                let result = conclude(push, sent, startedAt: startedAt, answer: &answer, report: &report)
                let completion = PushCompletion(push: push, result: result, answer: answer)
                if let report {
                    sends.needsTask {
                        await self.report(report)
                        finished(completion, results)
                    }
                    signals.outbox.signal()
                } else {
                    finished(completion, results)
                    sends.ended()
                }
            case .unfinished(let resume):
                sends.needsTask {
                    let sent: Result<APNsClient.Result, any Error>
                    do {
                        sent = .success(try await resume())
                    } catch {
                        sent = .failure(error)
                    }
                    var answer = DeliveryAnswer()
                    var report: LifecycleReport?
                    let result = conclude(push, sent, startedAt: startedAt, answer: &answer, report: &report)
                    if let report { await self.report(report) }
                    finished(PushCompletion(push: push, result: result, answer: answer), results)
                }
                signals.outbox.signal()
            }
        }
    }

    /// Counts a push's end and buffers its result; wakes a loop only when a claim or a fan-out page became worth
    /// making (each wake-up has a cost).
    func finished(_ completion: PushCompletion, _ results: ResultBuffer) {
        let stillSending = results.finished(completion)
        if stillSending == 0 || stillSending == configuration.maxInFlight - worthClaiming { signals.outbox.signal() }
        if stillSending == max(0, configuration.maxInFlight - configuration.fanOutBatch) { signals.room.signal() }
    }

    private func report(_ report: LifecycleReport) async {
        await self.report(report.kind, appId: report.appId, reason: report.reason, until: report.until)
    }

    /// Decides what to record for a push from what sending it gave (`startedAt`: when sending began); `answer` gets
    /// what APNs or the transport said, `report` a pause or resumption of the app to record.
    func conclude(
        _ push: OutboxPush, _ sent: Result<APNsClient.Result, any Error>, startedAt now: Date, answer: inout DeliveryAnswer,
        report: inout LifecycleReport?
    ) -> DeliveryResult {
        let type = push.kind.pushType
        func retry(hint: Duration?) -> DeliveryResult {
            guard push.attempts + 1 < configuration.maxAttempts else {
                return final(push, .failed(reason: "gave up after \(configuration.maxAttempts) attempts"))
            }
            return .retry(at: now + configuration.retryDelay(attempts: push.attempts, hint: hint).seconds)
        }
        do {
            let result = try sent.get()
            let reason = result.response.reason?.rawValue
            answer = DeliveryAnswer(status: result.response.status, reason: reason, apnsId: result.response.apnsIdText)
            metrics.countPush(type: type.rawValue, outcome: result.outcome.name, reason: reason ?? "")
            switch result.outcome {
            case .delivered:
                if signals.pauses.accepted(appId: push.appId) { report = LifecycleReport(kind: .appResumed, appId: push.appId) }
                return final(push, .delivered)
            case .retry(let after, _): return retry(hint: after)
            case .reconnect, .refreshProviderToken: return retry(hint: nil)
            case .pruneToken(let since, let why): return final(push, .prune(since: since, reason: why.rawValue))
            case .suspectToken(let why): return final(push, .suspect(reason: why.rawValue))
            case .rejected(let why): return final(push, .failed(reason: why.rawValue))
            case .credentialsInvalid(let why):
                let until = self.now() + configuration.credentialsPause.seconds
                let began = signals.pauses.pause(appId: push.appId, reason: why.rawValue, until: until, now: self.now())
                logger.error("APNs refused the app's credentials; its sending is paused", metadata: [
                    "app": "\(push.appId)", "reason": "\(why.rawValue)", "until": "\(until)",
                ])
                if began { report = LifecycleReport(kind: .appPaused, appId: push.appId, reason: why.rawValue, until: until) }
                return .postpone(at: until)
            }
        } catch let error as APNsTransportError {
            metrics.countPush(type: type.rawValue, outcome: "transport-error", reason: error.code.rawValue)
            answer.reason = error.code.rawValue
            switch error.code {
            case .circuitOpen:
                // The host is spared, not this push: wait for the breaker without using an attempt.
                let wait = max(error.retryAfter ?? .zero, configuration.retryBase)
                return .postpone(at: now + (wait * Double.random(in: 1.0...1.5)).seconds)
            case .invalidRequest:
                return final(push, .failed(reason: error.message))
            case .deadlineExceeded, .connectFailed, .connectionLost, .shutdown:
                return retry(hint: nil)
            }
        } catch PushSender.Failure.unknownApp {
            return .failed(reason: "app deleted")
        } catch PushSender.Failure.invalid(let message) {
            answer.reason = message
            return final(push, .failed(reason: message))
        } catch {
            // Storage or key problems: keep the push and try later.
            logger.error("push could not be sent", metadata: ["app": "\(push.appId)", "error": "\(error)"])
            return .postpone(at: now + configuration.credentialsPause.seconds)
        }
    }
}
