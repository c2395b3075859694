import BraceletProtocol

/// One Bluetooth adapter as the management interface sees it: `hciN` is controller index N.
public struct ManagementAdapter: Sendable, Hashable {
    /// The adapter's name, `hciN`.
    public var name: String
    /// Its controller index.
    public var index: UInt16

    /// The adapter called `name` (`hci0`), or the first adapter the kernel lists when `name` is nil.
    /// Throws ``BluetoothError/noAdapter(name:)`` when there is none (or the name is not `hciN`).
    public static func resolve(_ name: String?, on socket: ManagementSocket) throws(BluetoothError) -> ManagementAdapter {
        if let name {
            guard name.hasPrefix("hci"), let index = UInt16(name.dropFirst(3)) else { throw .noAdapter(name: name) }
            return ManagementAdapter(name: name, index: index)
        }
        let list = try socket.command(ManagementOpcode.readIndexList, index: ManagementSocket.noIndex,
                                      operation: "listing Bluetooth adapters")
        guard let count: UInt16 = list.readLittleEndian(at: 0), count > 0, let first: UInt16 = list.readLittleEndian(at: 2) else {
            throw .noAdapter(name: nil)
        }
        return ManagementAdapter(name: "hci\(first)", index: first)
    }

    /// What Read Controller Information says about the adapter.
    public struct Information: Sendable, Hashable {
        /// The adapter's public address.
        public var address: BluetoothAddress
        /// Supported settings bits (mgmt-api.txt).
        public var supportedSettings: UInt32
        /// Current settings bits.
        public var currentSettings: UInt32

        /// Whether the adapter is powered.
        public var isPowered: Bool { currentSettings & 0x0001 != 0 }
        /// Whether Low Energy is enabled.
        public var isLowEnergyEnabled: Bool { currentSettings & 0x0200 != 0 }
        /// Whether the controller can do Low Energy at all.
        public var supportsLowEnergy: Bool { supportedSettings & 0x0200 != 0 }
    }

    /// Reads the adapter's address and settings; ``BluetoothError/noAdapter(name:)`` when it does not exist.
    public func information(on socket: ManagementSocket) throws(BluetoothError) -> Information {
        let reply = try socket.command(ManagementOpcode.readInfo, index: index, operation: "reading \(name)'s settings", adapter: name)
        guard reply.count >= 15, let address = BluetoothAddress(wireBytes: Array(reply[0..<6])),
              let supported: UInt32 = reply.readLittleEndian(at: 9), let current: UInt32 = reply.readLittleEndian(at: 13) else {
            throw .management(operation: "reading \(name)'s settings (short answer)", status: 0x03)
        }
        return Information(address: address, supportedSettings: supported, currentSettings: current)
    }

    /// Reads the adapter's settings and throws ``BluetoothError/adapterDown(name:)`` when it is not
    /// powered, or a management error when it cannot do Low Energy.
    public func requirePoweredLowEnergy(on socket: ManagementSocket) throws(BluetoothError) -> Information {
        let info = try information(on: socket)
        guard info.isPowered else { throw .adapterDown(name: name) }
        guard info.isLowEnergyEnabled else { throw .management(operation: "\(name) has Low Energy switched off; `sudo btmgmt --index \(index) le on`", status: 0x0C) }
        return info
    }

    /// Sets one on/off setting (Set Powered, Set LE, Set Connectable...).
    public func set(_ opcode: UInt16, _ on: Bool, operation: String, on socket: ManagementSocket) throws(BluetoothError) {
        try socket.command(opcode, index: index, parameters: [on ? 1 : 0], operation: operation, adapter: name)
    }
}
