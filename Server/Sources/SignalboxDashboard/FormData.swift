import Foundation
import SignalboxServer

/// The fields of an HTML form post: `application/x-www-form-urlencoded` or `multipart/form-data` (file
/// fields hold the file's bytes as text; the dashboard uploads only `.p8` PEM text).
struct FormData: Sendable {
    private(set) var fields: [String: String] = [:]

    subscript(_ name: String) -> String? { fields[name] }

    /// Parses a body by its `Content-Type`. - Returns: nil when the type is neither form encoding, or the body is malformed.
    init?(contentType: String?, body: [UInt8]) {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            fields = Self.urlEncoded(String(decoding: body, as: UTF8.self))
        } else if type.hasPrefix("multipart/form-data"), let boundary = Self.boundary(contentType ?? "") {
            guard let parsed = Self.multipart(body, boundary: boundary) else { return nil }
            fields = parsed
        } else {
            return nil
        }
    }

    /// `a=1&b=x+y`: `+` is a space in form encoding.
    private static func urlEncoded(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String { String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            guard let name = parts.first else { continue }
            fields[decode(name)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    private static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 200 ? nil : value
            }
        }
        return nil
    }

    /// Splits on `--boundary` lines; each part is headers, a blank line, then its content.
    private static func multipart(_ body: [UInt8], boundary: String) -> [String: String]? {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n\r\n".utf8)
        var fields: [String: String] = [:]
        var positions: [Int] = []
        var index = 0
        while let found = body.firstRange(of: delimiter, from: index) {
            positions.append(found.lowerBound)
            index = found.upperBound
        }
        guard positions.count >= 2 else { return nil }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var part = Array(body[(start + delimiter.count)..<end])
            guard part.starts(with: Array("\r\n".utf8)) else { return nil }
            part.removeFirst(2)
            if part.suffix(2) == ArraySlice("\r\n".utf8) { part.removeLast(2) }
            guard let split = part.firstRange(of: separator, from: 0) else { return nil }
            let headers = String(decoding: part[..<split.lowerBound], as: UTF8.self)
            guard let name = Self.dispositionName(headers) else { continue }
            fields[name] = String(decoding: part[split.upperBound...], as: UTF8.self)
        }
        return fields
    }

    /// `Content-Disposition: form-data; name="privateKey"; filename="AuthKey.p8"` → `privateKey`.
    private static func dispositionName(_ headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            guard let range = line.range(of: " name=\"") else { return nil }
            let rest = line[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// The first occurrence of `pattern` at or after `start`.
    fileprivate func firstRange(of pattern: [UInt8], from start: Int) -> Range<Int>? {
        guard !pattern.isEmpty, count >= pattern.count, start <= count - pattern.count else { return nil }
        var index = start
        while index <= count - pattern.count {
            if self[index] == pattern[0], self[index..<(index + pattern.count)].elementsEqual(pattern) { return index..<(index + pattern.count) }
            index += 1
        }
        return nil
    }
}
