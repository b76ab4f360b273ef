import Logging
import ServiceLifecycle
import SignalboxModel

/// Wakes this instance's fan-out and dispatcher when another instance on the same database accepts an event or
/// stores pushes, instead of at their next poll. A lost connection is listened on again after a pause; the polls
/// cover what was missed meanwhile.
public struct ChangeListener: Service {
    let notifier: any ChangeNotifier
    let signals: DeliverySignals
    let logger: Logger

    public init(notifier: any ChangeNotifier, signals: DeliverySignals, logger: Logger) {
        self.notifier = notifier
        self.signals = signals
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var pause = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await notifier.listenForChanges { [signals] change in
                        switch change {
                        case .eventAccepted: signals.eventAccepted()
                        case .pushesQueued: signals.pushesQueued()
                        }
                    }
                    return  // nothing to listen to (one process owns the storage)
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("listening for other instances' changes failed; polling meanwhile", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(10))
            }
        }
    }
}
