import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import SignalboxAPI
import SignalboxModel

/// An API failure: an HTTP status and `{"error": {"code", "message"}}`. Messages never hold secrets.
public struct APIError: HTTPResponseError, Sendable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// With `stale_revision`: the revision the server holds, so the client can tell its snapshot was superseded.
    public var currentRevision: Int64?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, currentRevision: Int64? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.currentRevision = currentRevision
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(ErrorResponse(code: code, message: message, currentRevision: currentRevision), status: status)
    }

    static func invalid(_ error: ValidationError) -> APIError { APIError(.badRequest, "invalid_field", error.description) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, "not_found", message) }
    static let incompleteBody = APIError(.badRequest, "incomplete_body", "the request body ended early or could not be parsed")
    static let unauthorized = APIError(.unauthorized, "unauthorized", "missing or unknown credentials: send Authorization: Bearer <key or device token>")

    /// Maps any error a handler throws to the API's form; unexpected ones become a 500 without details.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as ValidationError:
            return invalid(error)
        case let error as StoreError where error.code == .notFound:
            return notFound(error.message)
        case let error as StoreError where error.code == .conflict:
            guard let current = error.currentRevision else { return APIError(.conflict, "conflict", error.message) }
            return APIError(.conflict, "stale_revision", error.message, currentRevision: current)
        case let error as StoreError where error.code == .quotaExceeded:
            return APIError(.forbidden, "quota_exceeded", error.message)
        case is HTTPParserError:
            return incompleteBody
        case is NIOTooManyBytesError:
            return APIError(.contentTooLarge, "body_too_large", "the request body is larger than the limit")
        case let error as HTTPError:
            let code = error.status == .contentTooLarge ? "body_too_large" : error.status == .notFound ? "not_found" : "http_error"
            return APIError(error.status, code, error.body ?? error.status.reasonPhrase)
        default:
            return APIError(.internalServerError, "internal", "internal error; see the server log")
        }
    }
}

/// Turns every error into the API's JSON error body (or, for the dashboard, into a page) and logs unexpected ones.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package var answer: @Sendable (APIError) -> Response = { error in
        Response.json(ErrorResponse(code: error.code, message: error.message, currentRevision: error.currentRevision), status: error.status)
    }

    package init() {}

    package init(answer: @escaping @Sendable (APIError) -> Response) { self.answer = answer }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError.from(error)
            if apiError.status == .internalServerError {
                // The route's pattern, not the path: a path can carry a push token.
                context.logger.error("request failed", metadata: [
                    "error": "\(String(reflecting: type(of: error)))", "method": "\(request.method)", "route": "\(context.endpointPath ?? "none")",
                ])
            }
            return answer(apiError)
        }
    }
}

extension Response {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? SignalboxJSON.makeEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// Decodes a JSON body strictly: size-limited, unknown fields and wrong types rejected with the field's path.
    /// - Parameter emptyAs: the value of an empty body; without it an empty body is an error.
    mutating func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int, emptyAs empty: T? = nil) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await collectBody(upTo: limit)
        } catch let error as NIOTooManyBytesError {
            throw error
        } catch let error as HTTPError {
            throw error
        } catch {
            // The peer aborted or half-closed mid-body, sent a malformed body, or was too slow: its fault, not ours.
            throw APIError.incompleteBody
        }
        guard buffer.readableBytes > 0 else {
            if let empty { return empty }
            throw APIError(.badRequest, "invalid_json", "the request needs a JSON body")
        }
        do {
            return try SignalboxJSON.makeDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, "invalid_json", Self.describe(error))
        }
    }

    /// The query's parameters, refusing any the operation does not take, as unknown body fields are refused.
    func query(allowing names: Set<String>) throws -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in uri.queryParameters {
            guard names.contains(String(name)) else {
                let known = names.isEmpty ? "none" : names.sorted().joined(separator: ", ")
                throw APIError.invalid(ValidationError(field: String(name), "is not a query parameter of this operation (it takes \(known))"))
            }
            query[String(name)] = String(value)
        }
        return query
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): is required"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): must be \(describe(type))"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): must be \(describe(type)), not null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the body does not match the expected JSON"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        default: "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
