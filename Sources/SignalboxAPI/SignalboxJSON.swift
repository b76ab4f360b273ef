import Foundation

/// The JSON coding every Signalbox HTTP answer and every client of it uses, so that a date is written and
/// read the same way on both sides: an ISO 8601 UTC string with milliseconds (`2026-11-25T01:28:45.252Z`).
///
/// Milliseconds keep two writes within one second ordered; a reader also accepts a string without them,
/// as other tools write it.
public enum SignalboxJSON {
    /// A new encoder: dates as ISO 8601 UTC, keys sorted (stable answers diff well), slashes unescaped.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    /// A new decoder that reads dates as `makeEncoder()` writes them (fractional seconds optional).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "must be an ISO 8601 UTC date such as 2026-11-25T01:28:45.252Z"
                )
            }
            return date
        }
        return decoder
    }

    /// `date` as an ISO 8601 UTC string with milliseconds.
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Parses an ISO 8601 date with or without fractional seconds; `nil` when `text` is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
