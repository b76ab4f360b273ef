import Foundation
import SignalboxModel

/// Delivery-log lines grouped by what they share, so that each group's shared values are bound once.
struct LogRun {
    struct Key: Hashable {
        var appId: String
        var pushType: String
        var eventId: String?
        var at: Int64
        var outcome: String
        var status: Int?
        var reason: String?
        var attempt: Int
    }

    /// Runs of at least this many lines of one event are indexed by event (`by_event`, `Migrations`).
    static let largeEventLines = 200

    let key: Key
    var lines: [DeliveryLogEntry]

    /// Whether the run's lines are found through their event rather than the installation index.
    var byEvent: Bool { key.eventId != nil && lines.count >= Self.largeEventLines }

    /// The entries grouped by `Key`, in the order each group first appears.
    static func runs(of entries: [DeliveryLogEntry]) -> [LogRun] {
        var runs: [LogRun] = []
        var positions: [Key: Int] = [:]
        for entry in entries {
            let key = Key(
                appId: entry.appId, pushType: entry.pushType, eventId: entry.eventId, at: entry.at.milliseconds,
                outcome: entry.outcome, status: entry.answer.status, reason: entry.answer.reason, attempt: entry.attempt
            )
            if let position = positions[key] {
                runs[position].lines.append(entry)
            } else {
                positions[key] = runs.count
                runs.append(LogRun(key: key, lines: [entry]))
            }
        }
        return runs
    }
}
