import Foundation
import SQLKit
import SignalboxModel

/// Delivery-log lines grouped by what they share, so that a group's shared values are written once.
struct LogRun {
    struct Key: Hashable {
        var appId: String
        var pushType: String
        var eventId: String?
        var at: Int64
        var outcome: DeliveryOutcome
        var status: Int?
        var reason: String?
        var attempt: Int
        /// Whether the lines name their installation (a direct push names none).
        var installed: Bool

        init(_ entry: DeliveryLogEntry) {
            appId = entry.appId
            pushType = entry.pushType
            eventId = entry.eventId
            at = entry.at.milliseconds
            outcome = entry.outcome
            status = entry.answer.status
            reason = entry.answer.reason
            attempt = entry.attempt
            installed = entry.installationId != nil
        }
    }

    /// A run of at least this many delivered lines of one event is kept as one row (`delivery_runs`): a lookup
    /// by installation scans an app's runs, at most `deliveryLog.maxLines` / this many.
    static let packedLines = 100

    let key: Key
    var lines: [DeliveryLogEntry]

    /// Whether the run is kept as one row. Other outcomes stay lines of their own, where the token's index finds
    /// them (a pruned token's last answer); so do lines without an installation, which no lookup would reach in a run.
    var packed: Bool { key.outcome == .delivered && key.eventId != nil && key.installed && lines.count >= Self.packedLines }

    /// The entries grouped by `Key`, in the order each group first appears.
    static func runs(of entries: [DeliveryLogEntry]) -> [LogRun] {
        var runs: [LogRun] = []
        var positions: [Key: Int] = [:]
        for entry in entries {
            // Most lines share the previous line's run: compared, not hashed.
            if let last = runs.indices.last, runs[last].holds(entry) {
                runs[last].lines.append(entry)
                continue
            }
            let key = Key(entry)
            if let position = positions[key] {
                runs[position].lines.append(entry)
            } else {
                positions[key] = runs.count
                runs.append(LogRun(key: key, lines: [entry]))
            }
        }
        return runs
    }

    /// Whether `entry` belongs to this run (`Key(entry) == key`, without copying the entry's strings).
    private func holds(_ entry: DeliveryLogEntry) -> Bool {
        entry.eventId == key.eventId && entry.at.milliseconds == key.at && entry.outcome == key.outcome && entry.attempt == key.attempt
            && entry.answer.status == key.status && entry.answer.reason == key.reason && entry.appId == key.appId
            && entry.pushType == key.pushType && (entry.installationId != nil) == key.installed
    }

    /// The first and last installation id of `lines` in bytewise (UTF-8) order, the order SQLite's and PostgreSQL's
    /// `COLLATE "C"` comparisons use; nil when none names one.
    static func installationRange(_ lines: ArraySlice<DeliveryLogEntry>) -> (first: String, last: String)? {
        var range: (first: String, last: String)?
        for id in lines.lazy.compactMap(\.installationId) {
            guard let (first, last) = range else { range = (id, id); continue }
            if id.utf8.lexicographicallyPrecedes(first.utf8) { range?.first = id }
            if last.utf8.lexicographicallyPrecedes(id.utf8) { range?.last = id }
        }
        return range
    }
}

extension LogRun {
    /// A packed run's line: a JSON array of these fields in this order, read back in SQL as `line.value ->> field`.
    enum LineField: Int {
        case token, apnsId, installation
    }
}

extension SQLQueryString {
    /// A packed run line's field position (`line.value ->> \(runLine: .token)`).
    mutating func appendInterpolation(runLine field: LogRun.LineField) {
        appendInterpolation(literal: field.rawValue)
    }
}
