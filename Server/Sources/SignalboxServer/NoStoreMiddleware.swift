import HTTPTypes
import Hummingbird

/// `Cache-Control: no-store` on every `/v1/` response: some carry secrets shown once (a new app's server key
/// and device secret, rotated keys), and none is worth keeping in a shared or browser cache.
struct NoStoreMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.uri.path.hasPrefix("/v1/") { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
