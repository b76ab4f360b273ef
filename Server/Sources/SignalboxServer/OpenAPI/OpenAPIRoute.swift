import Hummingbird

/// `GET /openapi.json`: the OpenAPI 3.1 document of the whole HTTP API, the single written contract.
///
/// The document is hand-written (`openapi.json` beside this file) rather than the source of generated types:
/// the hand-written `SignalboxAPI` decoders reject unknown fields and name the failing field's path in their
/// errors, and swift-openapi-generator's build plugin would lengthen every clean build.
/// `OpenAPIDocumentTests` checks the types against the document; schemathesis checks the running server.
enum OpenAPIRoute {
    static func add(to router: Router<BasicRequestContext>) {
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json))
            )
        }
    }
}
