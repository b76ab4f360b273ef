import Foundation
import SignalboxModel
import SignalboxStoreTestSupport

extension CrossCheckRun {
    /// Applies `operation` to one replica. - Returns: its answer as text every backend must match (a refusal by its
    /// `StoreError` code).
    mutating func apply(_ operation: CrossCheckOperation, to index: Int) async -> String {
        do {
            return try await answer(operation, on: &replicas[index])
        } catch let error as StoreError {
            return "refused: \(error.code)\(error.currentRevision.map { " (current \($0))" } ?? "")"
        } catch {
            return "failed: \(error)"
        }
    }

    private func answer(_ operation: CrossCheckOperation, on replica: inout CrossCheckReplica) async throws -> String {
        let store = replica.store
        switch operation {
        case .putInstallation(let app, let installation, let maxPerUser, let revision):
            try await store.registry.putInstallation(appId: app, installation, now: now, maxPerUser: maxPerUser, revision: revision)
        case .putControls(let app, let id, let controls, let revision):
            try await store.registry.putControls(appId: app, installationId: id, controls, now: now, revision: revision)
        case .putWidgets(let app, let id, let registration):
            try await store.registry.putWidgets(appId: app, installationId: id, registration, now: now)
        case .putFileProvider(let app, let id, let registration):
            try await store.registry.putFileProvider(appId: app, installationId: id, registration, now: now)
        case .deleteFileProvider(let app, let id):
            return "existed: \(try await store.registry.deleteFileProvider(appId: app, installationId: id, now: now, revision: nil))"
        case .putEnumerator(let app, let id, let enumerator, let maxLive):
            try await store.registry.putEnumerator(appId: app, installationId: id, enumerator, now: now, maxLive: maxLive)
        case .deleteInstallation(let app, let id):
            return "existed: \(try await store.registry.deleteInstallation(appId: app, id: id))"
        case .createEvent(let record):
            try await store.delivery.createEvent(record)
        case .fanOut(let event, let batch, let handOff):
            let step = try await store.delivery.fanOutStep(eventId: event, batchSize: batch, now: now, handOff: handOff)
            let handedOff = replica.hold(step.handedOff)
            return "planned \(step.planned), coalesced \(step.coalesced), finished \(step.finished), busy \(step.busy), handed off [\(handedOff)]"
        case .claim(let limit, let paused):
            return "claimed [\(replica.hold(try await store.delivery.claimDuePushes(now: now, limit: limit, pausedApps: paused)))]"
        case .complete(let results):
            var completions: [PushCompletion] = []
            for (identity, result) in results {
                guard let push = replica.inFlight.removeValue(forKey: identity) else { return "no push \(identity) in flight" }
                completions.append(PushCompletion(push: push, result: result))
            }
            let summary = try await store.delivery.complete(completions, now: now)
            return "tokens pruned \(summary.tokensPruned), claims lost \(summary.claimsLost)"
        case .restart(_, let lateAnswers):
            let stale = replica.inFlight
            replica.inFlight = [:]
            replica.active = 1 - replica.active
            var answer = "released \(try await replica.store.delivery.releaseClaims(now: now))"
            if lateAnswers {
                let late = stale.sorted { $0.key < $1.key }.map { PushCompletion(push: $0.value, result: .delivered) }
                let summary = try await replica.stopped.delivery.complete(late, now: now)
                answer += ", late answers lost \(summary.claimsLost) of \(late.count)"
            }
            return answer
        case .advance:
            break
        case .setIntervals(let app, let intervals):
            try await store.delivery.setPushIntervals(appId: app, intervals)
            return "intervals \(try await store.delivery.pushIntervals(appId: app).sorted { $0.key.rawValue < $1.key.rawValue })"
        case .deleteExpiredEnumerators:
            return "expired \(try await store.registry.deleteExpiredEnumerators(now: now))"
        case .failEvent(let id):
            try await store.delivery.failEvent(id: id, reason: "gave up", now: now)
        case .purge(let age):
            return "purged \(try await store.delivery.purgeEvents(createdBefore: now - age, limit: 1_000))"
        }
        return "done"
    }

    /// Everything the ports show of the sequence's data after a step: the outbox, the events, and the installations of
    /// `apps`.
    func observe(_ store: PortStores, installationsOf apps: CrossCheckOperation.ChangedApps) async throws -> CrossCheckObservation {
        var observation = CrossCheckObservation()
        observation.depth = try await store.delivery.outboxDepth()
        observation.nextDue = try await store.delivery.nextDueDate(pausedApps: [])
        observation.queued = try await store.delivery.eventsToFanOut(limit: 20).map(\.id)
        for app in draw.apps where apps == .all || apps == .one(app) {
            for id in draw.installationIds { observation.installations["\(app)/\(id)"] = try await store.registry.installation(appId: app, id: id, now: now) }
        }
        for id in events {
            var status: EventStatus?
            for app in draw.apps where status == nil { status = try await store.delivery.eventStatus(appId: app, id: id) }
            observation.events[id] = status
        }
        return observation
    }

    /// The claim limit nearest `wanted` whose pick the rule decides alone. The SQL ranks an app's due pushes by due
    /// time and push id, as `ClaimOrder` does, but first keeps each app's `limit` earliest by due time only, and leaves
    /// equal turns with equal due times of different apps in any order. A limit that cuts through either tie could take
    /// different pushes on different backends, all of them right; the cross-check claims only at limits that do not.
    static func limit(near wanted: Int, _ pending: [ClaimOrder.Candidate], now: Int64, paused: Set<String>) -> Int {
        let order = ClaimOrder.claim(pending, now: now, limit: 1_000_000, pausedApps: paused)
        var ranked: [String: [ClaimOrder.Candidate]] = [:]
        for push in order { ranked[push.appId, default: []].append(push) }
        for app in ranked.keys { ranked[app]!.sort { ($0.due, $0.id) < ($1.due, $1.id) } }
        var turn: [String: Int] = [:]
        for pushes in ranked.values { for (index, push) in pushes.enumerated() { turn[push.id] = index + 1 } }
        func decided(_ limit: Int) -> Bool {
            if limit < order.count, turn[order[limit - 1].id] == turn[order[limit].id], order[limit - 1].due == order[limit].due { return false }
            let taken = Dictionary(grouping: order.prefix(limit), by: \.appId).mapValues(\.count)
            return taken.allSatisfy { app, count in
                // The app's `limit` earliest by due time: arbitrary among a due time that straddles the limit.
                let pushes = ranked[app]!
                guard pushes.count > limit, pushes[limit - 1].due == pushes[limit].due else { return true }
                return count <= pushes.firstIndex { $0.due == pushes[limit].due }!
            }
        }
        for distance in 0...max(wanted, order.count) {
            for limit in [wanted - distance, wanted + distance] where limit >= 1 && decided(limit) { return limit }
        }
        return max(1, order.count)
    }
}
