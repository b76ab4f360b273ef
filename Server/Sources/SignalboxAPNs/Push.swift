import Foundation

/// One APNs request to one device token, validated before it is sent.
public struct Push: Sendable, Hashable {
    public var deviceToken: DeviceToken
    public var pushType: PushType
    /// The app's bundle id; the topic is the bundle id plus the push type's suffix.
    public var bundleId: String
    public var payload: [UInt8]
    /// `nil` sends no `apns-priority` header.
    public var priority: Priority?
    /// `nil` sends no `apns-expiration` header.
    public var expiration: Expiration?
    public var collapseId: String?
    /// The `apns-id` to send; `nil` (the default) lets APNs assign one, returned in `APNsResponse.apnsId`.
    public var id: UUID?

    /// The `apns-topic` value.
    public var topic: String { bundleId + pushType.topicSuffix }

    /// Creates a push with the push type's default priority and expiration.
    /// - Throws: `PushError` when the payload is empty or too large, or the collapse id is not 1–64 bytes of
    ///   printable ASCII (0x21–0x7E: a CR, LF or NUL in a header value is a protocol error that can cost the
    ///   whole shared connection).
    public init(
        deviceToken: DeviceToken,
        pushType: PushType,
        bundleId: String,
        payload: [UInt8]? = nil,
        priority: Priority?? = .none,
        expiration: Expiration?? = .none,
        collapseId: String? = nil,
        id: UUID? = nil
    ) throws(PushError) {
        guard let body = payload ?? Payload.default(for: pushType), !body.isEmpty else {
            throw PushError(code: .payloadEmpty, message: "a \(pushType.rawValue) push needs a payload")
        }
        guard body.count <= pushType.maximumPayloadSize else {
            throw PushError(
                code: .payloadTooLarge,
                message: "payload is \(body.count) bytes; APNs accepts at most \(pushType.maximumPayloadSize)"
            )
        }
        if let collapseId {
            guard collapseId.utf8.count <= 64 else {
                throw PushError(code: .collapseIdTooLong, message: "collapse id is longer than 64 bytes")
            }
            guard Self.isValidCollapseId(collapseId) else {
                throw PushError(code: .invalidCollapseId, message: "collapse id must be 1-64 printable ASCII characters (0x21-0x7E)")
            }
        }
        guard !bundleId.isEmpty else { throw PushError(code: .missingTopic, message: "bundle id is empty") }
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.bundleId = bundleId
        self.payload = body
        self.priority = priority ?? pushType.defaultPriority
        self.expiration = expiration ?? pushType.defaultExpiration
        self.collapseId = collapseId
        self.id = id
    }

    /// Whether `value` may be sent as `apns-collapse-id`: 1–64 bytes, each printable ASCII without space.
    public static func isValidCollapseId(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 64 && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The request's path, `/3/device/<hex token>`.
    public var path: String { "/3/device/" + deviceToken.hex }

    /// The APNs request headers other than the pseudo-headers and `authorization`, with HPACK advice:
    /// per-request values are not indexed, stable values are (`apns.md` §1.8).
    public var headers: [Header] {
        var headers: [Header] = []
        headers.reserveCapacity(6)
        headers.append(Header("apns-push-type", pushType.rawValue, indexable: true))
        headers.append(Header("apns-topic", topic, indexable: true))
        if let id { headers.append(Header("apns-id", id.uuidString.lowercased(), indexable: false)) }
        if let priority { headers.append(Header("apns-priority", String(priority.rawValue), indexable: true)) }
        if let expiration { headers.append(Header("apns-expiration", expiration.headerValue, indexable: false)) }
        if let collapseId { headers.append(Header("apns-collapse-id", collapseId, indexable: false)) }
        return headers
    }

    /// One request header.
    public struct Header: Sendable, Hashable {
        public let name: String
        public let value: String
        /// Whether HPACK may add the header to its dynamic table.
        public let indexable: Bool

        public init(_ name: String, _ value: String, indexable: Bool) {
            self.name = name
            self.value = value
            self.indexable = indexable
        }
    }
}

/// Why a push cannot be built; checked before anything is sent.
public struct PushError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case payloadEmpty, payloadTooLarge, collapseIdTooLong, invalidCollapseId, missingTopic
    }

    public let code: Code
    public let message: String

    public var description: String { message }
}
