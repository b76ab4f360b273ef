import Foundation
import Logging
import ServiceLifecycle
import SignalboxModel
import SignalboxStore

/// Fans accepted events out into the outbox, one page of installations per transaction, so memory stays
/// flat whatever the audience and a restart resumes at the stored cursor.
///
/// While the dispatcher has room, the pushes of a page that are due now are stored already claimed and handed
/// to it in memory: no claim query, no second write of their rows (the claim was a fifth of the storage
/// connection's time per push). When it has no room the fan-out waits up to a second for some, then stores the
/// page's pushes pending, to be claimed as before.
struct FanOutService: Service {
    let store: any DeliveryStore
    let signals: DeliverySignals
    let batchSize: Int
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let events = try await store.eventsToFanOut(limit: 16)
                    for event in events where !Task.isCancelled { try await fanOut(event) }
                    if events.isEmpty { await signals.fanOut.wait(upTo: .seconds(1)) }
                } catch {
                    logger.error("fan-out failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    private func fanOut(_ event: EventRecord) async throws {
        var planned = 0
        while !Task.isCancelled {
            let reserved = await reserveRoom(appId: event.appId)
            let started = ContinuousClock.now
            let step: FanOutStep
            do {
                step = try await store.fanOutStep(eventId: event.id, batchSize: batchSize, now: Date(), handOff: reserved)
            } catch {
                signals.results.release(reserved)
                throw error
            }
            signals.results.release(reserved - step.handedOff.count)
            signals.handedOff.add(step.handedOff)
            logger.debug("fan-out step", metadata: [
                "event": "\(event.id)", "pushes": "\(step.planned)", "coalesced": "\(step.coalesced)",
                "handedOff": "\(step.handedOff.count)", "took": "\(ContinuousClock.now - started)",
            ])
            planned += step.planned
            if step.planned > step.coalesced { signals.outbox.signal() }
            if step.finished { break }
        }
        logger.debug("event fanned out", metadata: ["event": "\(event.id)", "pushes": "\(planned)"])
    }

    /// Reserves in-flight slots for a page's pushes due now, waiting up to a second for a page's worth.
    private func reserveRoom(appId: String) async -> Int {
        let limit = signals.handOffLimit.load(ordering: .acquiring)
        guard limit > 0, signals.pauses.active(at: Date())[appId] == nil else { return 0 }
        let deadline = ContinuousClock.now + .seconds(1)
        // A ring can be stale (room taken since): look again after each.
        while limit - signals.results.inFlight < min(batchSize, limit), ContinuousClock.now < deadline {
            await signals.room.wait(upTo: deadline - ContinuousClock.now)
        }
        return signals.results.reserve(upTo: batchSize, limit: limit)
    }
}
