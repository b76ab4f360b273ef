import Foundation
import SignalboxAPI

extension Limits {
    /// Receipts in one `POST …/reloads`.
    public static let reloadsPerRequest = 100
}

extension Validate {
    /// Checks a batch of reload receipts. A time in the future (a device clock ahead) is taken as `now`.
    public static func reloads(_ request: ReloadsRequest, now: Date) throws(ValidationError) -> [ReloadReceipt] {
        guard !request.reloads.isEmpty else { throw ValidationError(field: "reloads", "must not be empty") }
        guard request.reloads.count <= Limits.reloadsPerRequest else {
            throw ValidationError(field: "reloads", "at most \(Limits.reloadsPerRequest) receipts per request")
        }
        return try request.reloads.enumerated().map { (index, body) throws(ValidationError) in
            try identifier(body.kind, field: "reloads[\(index)].kind", limit: Limits.kindLength)
            guard let type = PushKind(rawValue: body.pushType), type != .fileprovider else {
                throw ValidationError(field: "reloads[\(index)].pushType", "must be widgets or controls")
            }
            return ReloadReceipt(kind: body.kind, pushType: type, at: min(body.at, now))
        }
    }
}
