import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel

/// `Idempotency-Key` on `POST …/events` and `…/pushes`: a retry with the same key and request within 24 hours is
/// answered the first answer again (with `Idempotent-Replayed: true`) and acts no more; the key with a different
/// request is refused. A backend that timed out may so retry without sending twice.
enum Idempotency {
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    static let maxLength = 255

    /// The request's key, or nil when it sends none.
    /// - Throws: 400 `invalid_idempotency_key` for an empty, over-long, repeated or non-printable key.
    static func key(of request: Request) throws -> String? {
        let values = request.headers[values: header]
        guard let value = values.first else { return nil }
        guard values.count == 1 else {
            throw APIError(.badRequest, "invalid_idempotency_key", "Idempotency-Key: send one key, not \(values.count)")
        }
        guard (1...maxLength).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError(.badRequest, "invalid_idempotency_key", "Idempotency-Key: must be 1-\(maxLength) printable ASCII characters (0x21-0x7E, no spaces)")
        }
        return value
    }

    /// A digest of the operation and its decoded request, so a retry whose JSON differs only in key order or
    /// spacing counts as the same request.
    static func fingerprint(operation: String, _ body: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Hex.encode(SHA256.hash(data: Data((operation + "\n").utf8) + (try encoder.encode(body))))
    }

    /// An answer in the form it is sent and kept.
    static func answer(_ value: some Encodable, status: HTTPResponse.Status) -> StoredAnswer {
        let data = (try? SignalboxJSON.makeEncoder().encode(value)) ?? Data("{}".utf8)
        return StoredAnswer(status: Int(status.code), body: String(decoding: data, as: UTF8.self))
    }

    /// An API error as a kept answer (an error the request ended in after it acted).
    static func answer(_ error: APIError) -> StoredAnswer {
        answer(ErrorResponse(code: error.code, message: error.message), status: error.status)
    }

    static func response(_ answer: StoredAnswer, replayed: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if replayed { headers[replayedHeader] = "true" }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: answer.body)))
    }

    /// The answer for a key someone else holds, or nil when the claim is this request's.
    /// - Throws: 422 `idempotency_key_reused` for another request's key, 409 `idempotency_key_in_use` while the
    ///   first request with the key is still running.
    static func earlier(_ claim: IdempotencyClaim) throws -> Response? {
        switch claim {
        case .claimed:
            return nil
        case .replay(let answer):
            return response(answer, replayed: true)
        case .mismatch:
            throw APIError(
                .unprocessableContent, "idempotency_key_reused",
                "Idempotency-Key: this key was used with a different request in the last 24 hours; use a new key for a new request"
            )
        case .inProgress:
            throw APIError(.conflict, "idempotency_key_in_use", "Idempotency-Key: a request with this key is still running; retry in a moment")
        }
    }
}
