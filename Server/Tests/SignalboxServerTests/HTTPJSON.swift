import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal JSON-over-HTTP client for a server in another process.
struct HTTPJSON: Sendable {
    let base: String

    @discardableResult
    func call(_ method: String, _ path: String, key: String? = nil, json: String? = nil) async throws -> (status: Int, json: Any?) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let key { request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }
}
