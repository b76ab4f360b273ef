import Foundation
import HTTPTypes
import Hummingbird
import SignalboxAPI

/// A request whose path is an API operation's but whose method is none of that path's gets
/// `405 method_not_allowed` with an `Allow` header (RFC 9110 §15.5.6), instead of the router's 404 that says the
/// resource does not exist. The methods come from the OpenAPI document, which `OpenAPIDocumentTests` keeps equal
/// to the router's routes.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            // A 404 from a handler of an allowed method (not the router's) stays a 404.
            guard let operation = OpenAPIOperations.all.first(where: { Self.matches($0.segments, segments) }),
                  !operation.methods.contains(request.method.rawValue)
            else { throw error }
            var response = Response.json(
                ErrorResponse(code: "method_not_allowed", message: "\(request.method) is not allowed here; allowed: \(operation.methods.joined(separator: ", "))"),
                status: .methodNotAllowed
            )
            response.headers[.allow] = operation.methods.joined(separator: ", ")
            return response
        }
    }

    private static func matches(_ pattern: [String], _ segments: [String]) -> Bool {
        pattern.count == segments.count && zip(pattern, segments).allSatisfy { expected, given in
            expected.hasPrefix("{") ? !given.isEmpty : expected == given
        }
    }
}

/// The paths of `openapi.json` as segments (`{name}` matches any one segment) with their methods, read once
/// from the copy compiled into the binary.
enum OpenAPIOperations {
    static let all: [(segments: [String], methods: [String])] = {
        let document = (try? JSONSerialization.jsonObject(with: Data(PackageResources.openapi_json))) as? [String: Any]
        let paths = document?["paths"] as? [String: [String: Any]] ?? [:]
        return paths.sorted { $0.key < $1.key }.map { path, item in
            let methods = item.keys.filter { $0 != "parameters" }.map { $0.uppercased() }.sorted()
            return (path.split(separator: "/").map(String.init), methods)
        }
    }()
}
