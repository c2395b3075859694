import BraceletProtocol

extension BraceletAdvertisement {
    /// Brand id the simulated bracelet advertises (a simulator's own value, not a vendor's).
    public static let simulatedBrandID: UInt16 = 0x0001

    /// What a simulated bracelet of `model` with `serial` advertises (protocol-specs section 2):
    /// `pairingState` (``SimulatedPairing/advertisedState``), the model id of `model`, hardware id = model id.
    public static func simulated(model: DeviceModel, serial: String, pairingState: UInt8 = 0x01) -> BraceletAdvertisement {
        BraceletAdvertisement(pairingState: pairingState, serial: serial, brandID: simulatedBrandID,
                              hardwareID: UInt16(model.rawValue), modelID: UInt16(model.rawValue), localName: nil)
    }

    /// The scan response carrying the complete local name (it does not fit beside the flags and
    /// the service data in one 31-byte advertisement), e.g. `Bracelet V2`.
    public static func scanResponse(localName: String) -> [UInt8] {
        let name = Array(localName.utf8.prefix(29))
        return [UInt8(name.count + 1), 0x09] + name
    }
}
