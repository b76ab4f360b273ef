import Foundation
import SignalboxAPNs
import SignalboxModel

/// What one attempt's answer means for its push: retried with an attempt used, postponed without one, or final.
/// Pure: the dispatcher sends, counts, pauses and reports; this decides. `jitter` (0…1) spreads the retries of many
/// pushes over time: the dispatcher draws it at random, tests fix it. It is drawn only for a retry or postponement:
/// the system's random source is a system call, which a delivered push need not pay.
public enum DeliveryPolicy {
    /// What came back from one attempt.
    public enum Answer: Sendable, Hashable {
        /// APNs answered (`PushOutcome` says what the status and reason mean).
        case apns(PushOutcome)
        /// No answer from APNs (`APNsTransportError`).
        case transport(APNsTransportError)
        /// The app was deleted while its push was claimed.
        case unknownApp
        /// The push cannot be made into a request; the message says why.
        case invalid(String)
        /// Storage or the app's key could not be read.
        case unavailable
    }

    /// The push's result, and what else follows from the answer.
    public struct Decision: Sendable, Hashable {
        public var result: DeliveryResult
        /// APNs refused the app's credentials: its sending pauses, for this reason, until the result's time.
        public var pausesApp: String?
        /// The push has its final answer (its event → answer latency is recorded).
        public var answered: Bool

        public init(result: DeliveryResult, pausesApp: String? = nil, answered: Bool) {
            self.result = result
            self.pausesApp = pausesApp
            self.answered = answered
        }
    }

    public static func decide(_ answer: Answer, attempts: Int, now: Date, configuration: DeliveryConfiguration, jitter: @autoclosure () -> Double) -> Decision {
        func final(_ result: DeliveryResult) -> Decision { Decision(result: result, answered: true) }
        func retry(hint: Duration?) -> Decision {
            guard attempts + 1 < configuration.maxAttempts else {
                return final(.failed(reason: "gave up after \(configuration.maxAttempts) attempts"))
            }
            return Decision(result: .retry(at: now + configuration.retryDelay(attempts: attempts, hint: hint, jitter: jitter()).seconds), answered: false)
        }
        switch answer {
        case .apns(let outcome):
            switch outcome {
            case .delivered: return final(.delivered)
            case .retry(let after, _): return retry(hint: after)
            case .reconnect, .refreshProviderToken: return retry(hint: nil)
            case .pruneToken(let since, let why): return final(.prune(since: since, reason: why.rawValue))
            case .suspectToken(let why): return final(.suspect(reason: why.rawValue))
            case .rejected(let why): return final(.failed(reason: why.rawValue))
            case .credentialsInvalid(let why):
                return Decision(result: .postpone(at: now + configuration.credentialsPause.seconds), pausesApp: why.rawValue, answered: false)
            }
        case .transport(let error):
            switch error.code {
            case .circuitOpen:
                // The host is spared, not this push: wait for the breaker without using an attempt.
                let wait = max(error.retryAfter ?? .zero, configuration.retryBase)
                return Decision(result: .postpone(at: now + (wait * (1 + 0.5 * jitter())).seconds), answered: false)
            case .invalidRequest: return final(.failed(reason: error.message))
            case .deadlineExceeded, .connectFailed, .connectionLost, .shutdown: return retry(hint: nil)
            }
        case .unknownApp: return Decision(result: .failed(reason: "app deleted"), answered: false)
        case .invalid(let message): return final(.failed(reason: message))
        // Keep the push and try later.
        case .unavailable: return Decision(result: .postpone(at: now + configuration.credentialsPause.seconds), answered: false)
        }
    }
}
