import BraceletProtocol

extension ATTUUID {
    /// The ATT form of a protocol UUID: 16-bit when it lies on the Bluetooth base, else 128-bit.
    public init(_ uuid: BluetoothUUID) {
        // attBytes is 2 or 16 bytes, so the wire-form initialiser always succeeds.
        self = ATTUUID(wireBytes: uuid.attBytes) ?? .uuid16(0)
    }
}
