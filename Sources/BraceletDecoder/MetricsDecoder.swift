import BraceletProtocol
import CDecodeKernels

/// Decodes the records of a metrics file into ``MetricsColumns``: the hot path.
///
/// The decoder reads straight from a contiguous byte buffer, copies each field into its column and
/// flags values outside their valid range. It allocates nothing per record. The loop itself is C
/// (`CDecodeKernels`): on x86-64 it transposes 32 records at a time with AVX2 (16 with SSE2 on CPUs
/// without it) and checks ranges on the values while they are still in registers.
public struct MetricsDecoder: Sendable {
    /// The model whose record layout to read.
    public let model: DeviceModel
    /// Slot length in seconds, for per-slot limits on steps and energy.
    public let intervalSeconds: Int32
    /// Bytes per record.
    public var recordSize: Int { MetricsRecordLayout.size(for: model) }

    /// A decoder for records of `model` with slots of `intervalSeconds`.
    public init(model: DeviceModel, intervalSeconds: Int) {
        self.model = model
        self.intervalSeconds = Int32(clamping: intervalSeconds)
    }

    /// Decodes as many whole records from `records` as fit into `columns` (replacing its content)
    /// and returns how many bytes were consumed. `firstStart` is the start of the first record.
    @discardableResult
    public func decode(_ records: UnsafeRawBufferPointer, firstStart: Int64, into columns: MetricsColumns) -> Int {
        let size = recordSize
        let n = min(columns.capacity, records.count / size)
        columns.count = n
        columns.model = model
        columns.firstStart = firstStart
        columns.intervalSeconds = intervalSeconds
        guard n > 0, let base = records.baseAddress else { return 0 }
        let maxSteps = UInt32(clamping: Int(intervalSeconds) * Int(MetricsRecordLayout.maximumStepsPerSecond))
        let maxEnergy = UInt32(clamping: Int(intervalSeconds) * Int(MetricsRecordLayout.maximumCaloriesPerSecond))
        let records = base.assumingMemoryBound(to: UInt8.self)
        bracelet_decode(records, n, size, model == .v2 ? 1 : 0, maxSteps, maxEnergy, columns.kernelColumns)
        return n * size
    }
}
