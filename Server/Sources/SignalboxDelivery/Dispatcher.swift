import Foundation
import Logging
import Metrics
import ServiceLifecycle
import SignalboxAPNs
import SignalboxModel
import Synchronization

/// Delivers the outbox: sends the pushes the fan-out handed off and claims other due pushes, up to
/// `maxInFlight` at once, and records each result in batches. Pushes claimed (or handed off) but not recorded
/// when the process dies are released by the next start or, on a shared database, by any instance once their
/// lease has ended (`releaseLoop`). A class: every push's callbacks capture it, and a struct would be copied into
/// each of them field by field.
public final class Dispatcher: Service {
    let store: any DeliveryStore
    let sender: PushSender
    let signals: DeliverySignals
    let configuration: DeliveryConfiguration
    let logger: Logger
    /// The wall clock: due times, leases, pauses.
    let now: @Sendable () -> Date
    let metrics = DeliveryMetrics()
    let recentAnswers = RecentAnswers()
    /// Where `app.paused` and `app.resumed` are reported (webhooks), if anywhere.
    let lifecycle: (any LifecycleRecorder)?

    public init(
        store: any DeliveryStore, sender: PushSender, signals: DeliverySignals, configuration: DeliveryConfiguration, logger: Logger,
        lifecycle: (any LifecycleRecorder)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.lifecycle = lifecycle
        self.sender = sender
        self.signals = signals
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// The fewest free in-flight slots worth a claim.
    var worthClaiming: Int { max(1, min(configuration.claimBatch, configuration.maxInFlight) / 4) }
    /// The fewest free sending slots worth starting handed-off pushes for.
    var worthSending: Int { max(1, configuration.maxInFlight / 16) }
    /// How many pushes may be in flight, handed off included: `maxInFlight` being sent, and `handOffAhead` more
    /// waiting for them.
    var handOffLimit: Int { configuration.maxInFlight + configuration.handOffAhead }
    /// The largest page of an app fanning out alone (`FairShare.pageSize`).
    var lonePage: Int { FairShare.pageSize(configuration.fanOutBatch, handOffLimit: handOffLimit, apps: 1) }
    /// How many pushes may be in flight after a claim (`FairShare.claimLimit`).
    var claimLimit: Int { FairShare.claimLimit(maxInFlight: configuration.maxInFlight, handOffLimit: handOffLimit) }

    public func run() async throws {
        try await store.releaseClaims(now: now())
        signals.handOffLimit.store(handOffLimit, ordering: .releasing)
        let results = signals.results
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { [self] group in
                group.addTask { await self.recordLoop(results) }
                group.addTask { await self.depthLoop() }
                group.addTask { await self.releaseLoop() }
                let sends = TasklessSends()
                let transport = sender.client.transport
                var tasks = 0
                // The next task on the transport's event loops, where a push is sent and answered without a thread switch.
                func nextExecutor() -> (any TaskExecutor)? {
                    tasks &+= 1
                    return transport.senderExecutor(for: tasks)
                }
                // Starts pushes already counted in flight: one task per event loop starts its share, and each push
                // then lives in the transport's callbacks, not in a task of its own (docs/performance.md).
                func send(_ pushes: [OutboxPush]) {
                    guard !pushes.isEmpty else { return }
                    sends.started(pushes.count)
                    let shares = min(max(1, transport.senderExecutors.count), pushes.count)
                    for share in 0..<shares {
                        let part = stride(from: share, to: pushes.count, by: shares).map { pushes[$0] }
                        group.addTask(executorPreference: nextExecutor()) {
                            for push in part { self.start(push, results, sends) }
                            // What could not start without a task (an event's first pushes: credentials loading, no
                            // connection yet) is sent from here at once, not after the claim loop's next turn.
                            await withDiscardingTaskGroup { rest in
                                for finish in sends.takeUnfinished() { rest.addTask { await finish() } }
                            }
                        }
                    }
                }
                // Gives the pushes that need a task one each.
                func startTasks(_ work: [TasklessSends.Work]) {
                    for finish in work { group.addTask(executorPreference: nextExecutor()) { await finish() } }
                }
                // When pending pushes may be due without anything stored meanwhile (now: the previous process's).
                var claimDue = ContinuousClock.now
                while !Task.isCancelled {
                    startTasks(sends.takeUnfinished())
                    let ready = signals.handedOff.take(upTo: configuration.maxInFlight - results.sending)
                    results.sendingHandedOff(ready.count)
                    send(ready)
                    if signals.pushesStored.exchange(false, ordering: .acquiringAndReleasing) { claimDue = min(claimDue, ContinuousClock.now) }
                    let free = claimLimit - results.inFlight
                    // Claim in sizeable batches: each claim is a statement on the storage connection; and only when
                    // something may be due (a finished send alone makes nothing due).
                    guard free > 0, free >= worthClaiming || results.inFlight == 0, ContinuousClock.now >= claimDue else {
                        // Full, or nothing due: a finishing push rings when a claim or a send is worth making.
                        let untilDue = claimDue - ContinuousClock.now
                        await signals.outbox.wait(upTo: untilDue > .zero ? min(.seconds(1), untilDue) : .seconds(1))
                        continue
                    }
                    let paused = Set(signals.pauses.active(at: now()).keys)
                    let limit = min(free, configuration.claimBatch)
                    var claimed: [OutboxPush] = []
                    do {
                        let started = ContinuousClock.now
                        claimed = try await store.claimDuePushes(now: now(), limit: limit, pausedApps: paused)
                        if !claimed.isEmpty {
                            logger.debug("pushes claimed", metadata: ["count": "\(claimed.count)", "took": "\(ContinuousClock.now - started)"])
                        }
                    } catch where !Task.isCancelled {
                        logger.error("claiming pushes failed", metadata: ["error": "\(error)"])
                    } catch {
                        // Shutting down: the loop ends.
                    }
                    results.started(claimed)
                    send(claimed)
                    // Nothing more due now: sleep until new pushes are stored or the next retry is due.
                    if claimed.count < limit {
                        let wait = await idleWait(paused: paused)
                        claimDue = ContinuousClock.now + wait
                        await signals.outbox.wait(upTo: wait)
                    }
                }
                // Shutting down: the group ends only after the pushes under way have finished.
                while true {
                    let work = await sends.settle()
                    if work.isEmpty { break }
                    startTasks(work)
                }
            }
            await record(results.take())
        }
    }

    /// How long to sleep with nothing due: until the next retry, at most a second.
    private func idleWait(paused: Set<String>) async -> Duration {
        guard let due = try? await store.nextDueDate(pausedApps: paused) else { return .seconds(1) }
        let seconds = min(1, max(0.005, due.timeIntervalSince(now())))
        return .milliseconds(Int(seconds * 1000))
    }

    /// Writes results every 20 ms (or sooner when many are waiting).
    private func recordLoop(_ results: ResultBuffer) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
            await record(results.take())
        }
    }

    private func record(_ results: [PushCompletion]) async {
        guard !results.isEmpty else { return }
        let completions = sparingSuspects(results)
        while true {
            do {
                let started = ContinuousClock.now
                // In a task of its own, out of reach of the shutdown's cancellation: a store may fail a cancelled
                // query, and answers left unrecorded are sent again after a restart.
                let (store, time) = (store, now())
                let summary = try await Task { try await store.complete(completions, now: time) }.value
                if completions.contains(where: { if case .backToPending = PushLife.step(for: $0.result) { true } else { false } }) {
                    signals.pushesQueued()
                }
                logger.debug("results recorded", metadata: ["count": "\(completions.count)", "took": "\(ContinuousClock.now - started)"])
                if summary.tokensPruned > 0 { metrics.tokensPruned.increment(by: summary.tokensPruned) }
                if summary.claimsLost > 0 {
                    logger.warning("answers not recorded: their claims had ended and another instance took them over", metadata: [
                        "count": "\(summary.claimsLost)",
                    ])
                }
                return
            } catch {
                // Unrecorded results stay `sending` and are re-sent after a restart; keep trying meanwhile.
                logger.error("recording push results failed", metadata: ["error": "\(error)", "count": "\(completions.count)"])
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { return }
            }
        }
    }

    /// `apns.md` §2.5: the suspect answers of an app whose tokens APNs nearly all refuses fail without a strike.
    func sparingSuspects(_ completions: [PushCompletion]) -> [PushCompletion] {
        let (spared, apps) = recentAnswers.sparing(completions)
        for (app, reason) in apps.sorted(by: { $0.key < $1.key }) {
            logger.error("APNs refuses nearly every token of the app; check its environment and bundle id (no token pruned)", metadata: [
                "app": "\(app)", "reason": "\(reason)",
            ])
        }
        return spared
    }

    /// Takes over the claims of instances that stopped (their leases ended), every quarter lease.
    private func releaseLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.claimLease / 4)
            do {
                let released = try await store.releaseClaims(now: now())
                if released > 0 {
                    signals.pushesQueued()
                    logger.warning("claims of a stopped instance taken over", metadata: ["count": "\(released)"])
                }
            } catch where !Task.isCancelled {
                logger.error("releasing ended claims failed", metadata: ["error": "\(error)"])
            } catch {
                return  // shutting down
            }
        }
    }

    private func depthLoop() async {
        while !Task.isCancelled {
            if let depth = try? await store.outboxDepth() { metrics.outboxDepth.record(depth) }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
