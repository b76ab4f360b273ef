import Foundation
import Logging
import ServiceLifecycle
import SignalboxModel

/// Fans accepted events out into the outbox, one page of installations per transaction, so memory stays
/// flat whatever the audience and a restart resumes at the stored cursor.
///
/// Apps take turns (`design.md`, "Tenants share fairly"): each round, the oldest event of every app with one to
/// fan out takes one page, so one app's large event delays another app's event by a page, not by its whole
/// audience. An event whose step keeps failing is retried later while the others go on, and after
/// `configuration.fanOutAttempts` failures in a row it is given up as `failed`.
///
/// While the dispatcher has room, the pushes of a page that are due now are stored already claimed and handed
/// to it in memory: no claim query, no second write of their rows (the claim was a fifth of the storage
/// connection's time per push). When it has no room the fan-out of a single app waits up to a second for some
/// (less if another event arrives), then stores the page's pushes pending, to be claimed as before. An event's
/// first pages are small (`FanOutPages`), so its first pushes leave before much is planned, and its first page is
/// planned as soon as it is accepted, beside the step under way (`firstPages`). While several apps fan out, each app's
/// hand-off holds at most its share of the slots and nobody waits: what is not handed off is stored pending and
/// claimed in turns.
public struct FanOutService: Service {
    let store: any DeliveryStore
    let signals: DeliverySignals
    let configuration: DeliveryConfiguration
    let logger: Logger
    /// The wall clock: due times, pauses.
    let now: @Sendable () -> Date

    public init(
        store: any DeliveryStore, signals: DeliverySignals, configuration: DeliveryConfiguration, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.signals = signals
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await firstPages() }
                await rounds()
                group.cancelAll()
            }
        }
    }

    /// Plans the first page of each event this process accepts at once, beside the step under way, which is another
    /// app's page (tens of milliseconds on a loaded database): a quiet app's push then waits for no loud app's page,
    /// nor for a listing of the events to fan out. Events other instances accepted (they plan their first pages), and
    /// every later page, are the rounds' work. A step that fails here is only logged: the rounds step the event again
    /// and count its failures.
    private func firstPages() async {
        while !Task.isCancelled {
            await signals.newcomers.wait(upTo: .seconds(60))
            for event in signals.takeAcceptedHere() where !Task.isCancelled { await firstPage(event) }
        }
    }

    /// Plans a new event's first page (`firstPages`).
    private func firstPage(_ event: QueuedEvent) async {
        do {
            // Counted as one of several apps: it takes free slots within a share and never waits for room.
            let outcome = try await step(event, pageSize: FanOutPages.first, first: true, apps: 2, accepted: 0)
            // The rounds may have skipped the event meanwhile: its next page is theirs.
            if outcome == .planned { signals.fanOut.signal() }
        } catch {
            logger.debug("an event's first page failed; the rounds try again", metadata: ["event": "\(event.id)", "error": "\(error)"])
        }
    }

    /// Apps take turns, a page each (the type's description).
    private func rounds() async {
        var failures = FanOutFailures(attempts: configuration.fanOutAttempts, retryDelay: configuration.fanOutRetryDelay)
        var pages = FanOutPages(largest: configuration.fanOutBatch)
        var listing = FanOutListing()
        while !Task.isCancelled {
            let accepted = signals.eventsAccepted.load(ordering: .acquiring)
            let time = now()
            if !listing.isCurrent(accepted: accepted, now: time) {
                do {
                    listing.update(try await store.eventsToFanOut(limit: 256), accepted: accepted, at: time)
                } catch where !Task.isCancelled {
                    logger.error("listing events to fan out failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                    continue
                } catch {
                    return  // Shutting down.
                }
            }
            let queued = listing.events
            failures.keep(only: queued)
            pages.keep(only: queued)
            let now = ContinuousClock.now
            let round = FairShare.round(queued.filter { failures.isDue($0.id, at: now) }, inFlight: signals.results.inFlightByApp)
            guard !round.isEmpty else {
                listing.invalidate()
                // Nothing to do, or only events waiting for a retry: sleep until one is due or an event arrives.
                let wake = min(failures.nextRetry ?? now + .seconds(1), now + .seconds(1))
                await signals.fanOut.wait(upTo: max(.milliseconds(1), wake - now))
                continue
            }
            var busy = 0
            for event in round where !Task.isCancelled {
                do {
                    let outcome = try await step(
                        event, pageSize: pages.size(of: event.id), first: pages.isFirst(event.id), apps: round.count, accepted: accepted
                    )
                    if outcome == .interrupted { break }
                    failures.succeeded(event.id)
                    if outcome != .skipped { pages.took(event.id) }
                    if outcome != .planned { listing.invalidate() }
                    busy += outcome == .planned || outcome == .finished ? 0 : 1
                } catch {
                    listing.invalidate()
                    await failed(event, error: error, failures: &failures)
                }
            }
            // Every event is being fanned out elsewhere (other instances, the first-page loop): look again shortly.
            if busy == round.count { await signals.fanOut.wait(upTo: .milliseconds(50)) }
        }
    }

    /// Counts a failed step; gives the event up after too many in a row.
    private func failed(_ event: QueuedEvent, error: any Error, failures: inout FanOutFailures) async {
        guard let count = failures.failed(event.id, at: ContinuousClock.now) else {
            logger.error("fan-out step failed; retrying later", metadata: ["event": "\(event.id)", "error": "\(error)"])
            return
        }
        logger.error("fan-out failed too often; event given up", metadata: [
            "event": "\(event.id)", "app": "\(event.appId)", "failures": "\(count)", "error": "\(error)",
        ])
        do {
            // The reason is shown to the app: the count, not the error's text (which may name storage internals).
            try await store.failEvent(id: event.id, reason: "fan-out failed \(count) times in a row", now: now())
        } catch {
            logger.error("marking the event failed did not work; it will be tried again", metadata: ["event": "\(event.id)", "error": "\(error)"])
        }
    }

    /// What one step did.
    enum StepOutcome {
        case planned
        /// Planned the event's last page, or found its fan-out done.
        case finished
        /// Another instance was fanning the event out.
        case busy
        /// This process was stepping the event already (`DeliverySignals.stepping`).
        case skipped
        /// An event arrived while the step waited for room: the round is planned again, so it goes first.
        case interrupted
    }

    /// Fans out one page of the event's audience.
    private func step(_ event: QueuedEvent, pageSize: Int, first: Bool, apps: Int, accepted: Int) async throws -> StepOutcome {
        guard signals.stepping.withLock({ $0.insert(event.id).inserted }) else { return .skipped }
        defer { signals.stepping.withLock { _ = $0.remove(event.id) } }
        let pageSize = FairShare.pageSize(pageSize, handOffLimit: signals.handOffLimit.load(ordering: .acquiring), apps: apps)
        guard let reserved = await reserveRoom(appId: event.appId, pageSize: pageSize, apps: apps, accepted: accepted) else { return .interrupted }
        let started = ContinuousClock.now
        let step: FanOutStep
        do {
            step = try await store.fanOutStep(
                eventId: event.id, batchSize: pageSize, fullPage: configuration.fanOutBatch, now: now(), handOff: reserved, urgent: first
            )
        } catch {
            signals.results.release(reserved, app: event.appId)
            throw error
        }
        signals.results.release(reserved - step.handedOff.count, app: event.appId)
        signals.handedOff.add(step.handedOff)
        logger.debug("fan-out step", metadata: [
            "event": "\(event.id)", "pushes": "\(step.planned)", "coalesced": "\(step.coalesced)",
            "handedOff": "\(step.handedOff.count)", "took": "\(ContinuousClock.now - started)", "finished": "\(step.finished)",
        ])
        if step.planned > step.coalesced + step.handedOff.count {
            signals.pushesQueued()
        } else if !step.handedOff.isEmpty {
            signals.outbox.signal()
        }
        return step.busy ? .busy : step.finished ? .finished : .planned
    }

    /// Reserves in-flight slots for a page's pushes due now. Alone, the app waits up to a second for a page's
    /// worth within its own limit (what a page cannot hand off is stored pending and claimed: two more writes per
    /// push), unless an event arrives meanwhile (nil: plan the round again); while other apps fan out it takes
    /// what is free within its share at once (waiting would hold up their turns).
    private func reserveRoom(appId: String, pageSize: Int, apps: Int, accepted: Int) async -> Int? {
        let limit = signals.handOffLimit.load(ordering: .acquiring)
        guard limit > 0, signals.pauses.active(at: now())[appId] == nil else { return 0 }
        let appLimit = FairShare.handOffLimit(limit, apps: apps)
        if apps <= 1 {
            let deadline = ContinuousClock.now + .seconds(1)
            // A ring can be stale (room taken since): look again after each.
            while signals.results.room(app: appId, limit: limit, appLimit: appLimit) < min(pageSize, appLimit), ContinuousClock.now < deadline {
                guard signals.eventsAccepted.load(ordering: .acquiring) == accepted else { return nil }
                await signals.room.wait(upTo: deadline - ContinuousClock.now)
            }
        }
        return signals.results.reserve(upTo: pageSize, app: appId, limit: limit, appLimit: appLimit)
    }
}
