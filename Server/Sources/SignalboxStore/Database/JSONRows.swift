import SQLKit

/// Rows of text passed to one statement as a single JSON parameter (an array of arrays) that the database unpacks
/// (`SQLBackend.select(_:)`): a multi-row `VALUES` list costs a bind per column per row to build, serialize and bind.
struct JSONRows {
    let columns: Int
    private var json: [UInt8] = [UInt8(ascii: "[")]

    init(columns: Int) { self.columns = columns }

    /// Starts a row whose `columns` values follow with `add`, in order (no array per row, for the hot path).
    mutating func startRow() {
        if json.count > 1 { json.append(UInt8(ascii: "]")); json.append(UInt8(ascii: ",")) }
        json.append(UInt8(ascii: "["))
    }

    /// Adds the next value of the row `startRow` started.
    mutating func add(_ value: String?) {
        if json.last != UInt8(ascii: "[") { json.append(UInt8(ascii: ",")) }
        if let value { appendString(value) } else { json.append(contentsOf: "null".utf8) }
    }

    /// The JSON text of the rows appended so far.
    var text: String { String(decoding: json + (json.count > 1 ? "]]" : "]").utf8, as: UTF8.self) }

    /// A JSON string literal: quotes, backslashes and control characters escaped, other UTF-8 bytes as they are.
    private mutating func appendString(_ value: String) {
        json.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            // Tokens, ids and reasons rarely need escaping: copied whole when nothing does.
            guard bytes.contains(where: Self.needsEscape) else {
                json.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): json.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0..<0x20: json.append(contentsOf: "\\u00".utf8 + [Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
                default: json.append(byte)
                }
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static let hex = Array("0123456789abcdef".utf8)
}

extension SQLBackend {
    /// A `SELECT` of `rows` with columns `c0`, `c1`, … in their order (for `INSERT … SELECT`).
    func select(_ rows: JSONRows) -> SQLQueryString {
        let columns = (0..<rows.columns).map { "value ->> \($0) AS c\($0)" }.joined(separator: ", ")
        switch self {
        case .sqlite: return "SELECT \(unsafeRaw: columns) FROM jsonb_each(\(bind: rows.text))"
        case .postgres: return "SELECT \(unsafeRaw: columns) FROM jsonb_array_elements(\(bind: rows.text)::jsonb) AS r(value)"
        }
    }

    /// The elements of a JSON array column as a `FROM` item named `line`, each element its `value`.
    func elements(of column: String) -> SQLQueryString {
        switch self {
        case .sqlite: return "json_each(\(unsafeRaw: column)) AS line"
        case .postgres: return "jsonb_array_elements(\(unsafeRaw: column)::jsonb) AS line(value)"
        }
    }

    /// Makes a text comparison bytewise (UTF-8 order): SQLite's `BINARY` already is; PostgreSQL's may follow a locale.
    var bytewise: SQLQueryString { self == .postgres ? " COLLATE \"C\"" : "" }
}
