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
        sender.start(
            appId: push.appId, token: push.token, type: push.kind.pushType, environment: push.environment.apns, payload: Array(push.payload.utf8)
        ) { [self] started in
            switch started {
            case .finished(let sent):
                let (completion, report) = conclude(push, sent)
                if let report {
                    sends.needsTask {
                        await self.report(report)
                        self.finished(completion, results)
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
                    let (completion, report) = self.conclude(push, sent)
                    if let report { await self.report(report) }
                    self.finished(completion, results)
                }
                signals.outbox.signal()
            }
        }
    }

    /// Counts a push's end and buffers its result; wakes a loop only when a claim, a share of the handed-off pushes
    /// or a fan-out page became worth making (each wake-up has a cost).
    func finished(_ completion: PushCompletion, _ results: ResultBuffer) {
        let (inFlight, sending) = results.finished(completion)
        if inFlight == 0 || inFlight == claimLimit - worthClaiming || sending == configuration.maxInFlight - worthSending {
            signals.outbox.signal()
        }
        // A lone app's next page fits its hand-off limit from here on (`FanOutService.reserveRoom`).
        if inFlight == max(0, FairShare.handOffLimit(handOffLimit, apps: 1) - lonePage) { signals.room.signal() }
    }

    private func report(_ report: LifecycleReport) async {
        await self.report(report.kind, appId: report.appId, reason: report.reason, until: report.until)
    }

    /// Decides what to record for a push from what sending it gave (`DeliveryPolicy`), with what APNs or the transport
    /// said for the delivery log, and a pause or resumption of the app to record, if any.
    func conclude(_ push: OutboxPush, _ sent: Result<APNsClient.Result, any Error>) -> (PushCompletion, LifecycleReport?) {
        var answer = DeliveryAnswer()
        var report: LifecycleReport?
        let type = push.kind.pushType
        let outcome: DeliveryPolicy.Answer
        do {
            let result = try sent.get()
            let reason = result.response.reason?.rawValue
            answer = DeliveryAnswer(status: result.response.status, reason: reason, apnsId: result.response.apnsIdText)
            if case .delivered = result.outcome, reason == nil {
                metrics.countDelivered(type: type)
            } else {
                metrics.countPush(type: type.rawValue, outcome: result.outcome.name, reason: reason ?? "")
            }
            outcome = .apns(result.outcome)
        } catch let error as APNsTransportError {
            metrics.countPush(type: type.rawValue, outcome: "transport-error", reason: error.code.rawValue)
            answer.reason = error.code.rawValue
            outcome = .transport(error)
        } catch PushSender.Failure.unknownApp {
            outcome = .unknownApp
        } catch PushSender.Failure.invalid(let message) {
            answer.reason = message
            outcome = .invalid(message)
        } catch {
            logger.error("push could not be sent", metadata: ["app": "\(push.appId)", "error": "\(error)"])
            outcome = .unavailable
        }
        let now = self.now()
        let decision = DeliveryPolicy.decide(outcome, attempts: push.attempts, now: now, configuration: configuration, jitter: Double.random(in: 0...1))
        if decision.result == .delivered, signals.pauses.accepted(appId: push.appId) {
            report = LifecycleReport(kind: .appResumed, appId: push.appId)
        }
        if let reason = decision.pausesApp, case .postpone(let until) = decision.result {
            logger.error("APNs refused the app's credentials; its sending is paused", metadata: [
                "app": "\(push.appId)", "reason": "\(reason)", "until": "\(until)",
            ])
            if signals.pauses.pause(appId: push.appId, reason: reason, until: until, now: now) {
                report = LifecycleReport(kind: .appPaused, appId: push.appId, reason: reason, until: until)
            }
        }
        if decision.answered { metrics.eventToAnswer.recordSeconds(max(0, now.timeIntervalSince(push.eventCreatedAt))) }
        return (PushCompletion(push: push, result: decision.result, answer: answer), report)
    }
}
