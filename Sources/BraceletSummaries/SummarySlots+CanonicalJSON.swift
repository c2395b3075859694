import BraceletDecoder

// The per-slot records of the summaries write their canonical JSON directly (see
// ``BraceletDecoder/CanonicalJSONWritable``): a day holds up to 1,440 of each kind at the default
// one-minute summary slot, and a tree node per record and field made writing them the largest cost
// of storing a day. Each writes its keys in canonical order (all lower camel case, so the order is
// the alphabetical one ignoring case); the summary tests compare every type with its `Codable`
// encoding, so a field added to one of these types without adding it here fails them.

extension BPMSlot: CanonicalJSONWritable {
    /// `{"bpm":…,"intervalDate":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"bpm":"#, to: &out)
        TextBytes.append(bpm, to: &out)
        CanonicalJSON.appendLiteral(#","intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        out.append(0x7D)
    }
}

extension BreathSlot: CanonicalJSONWritable {
    /// `{"brpm":…,"brpmQ":…,"intervalDate":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"brpm":"#, to: &out)
        TextBytes.append(brpm, to: &out)
        CanonicalJSON.appendLiteral(#","brpmQ":"#, to: &out)
        TextBytes.append(brpmQ, to: &out)
        CanonicalJSON.appendLiteral(#","intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        out.append(0x7D)
    }
}

extension StepsSlot: CanonicalJSONWritable {
    /// `{"activityType":…,"distance":…,"energyExp":…,"intervalDate":…,"speed":…,"stepCount":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"activityType":"#, to: &out)
        CanonicalJSON.append(activityType.map(Int64.init), to: &out)
        CanonicalJSON.appendLiteral(#","distance":"#, to: &out)
        CanonicalJSON.append(distance.map(Int64.init), to: &out)
        CanonicalJSON.appendLiteral(#","energyExp":"#, to: &out)
        try CanonicalJSON.appendNumber(energyExp, to: &out, at: codingPath, key: "energyExp")
        CanonicalJSON.appendLiteral(#","intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        CanonicalJSON.appendLiteral(#","speed":"#, to: &out)
        try CanonicalJSON.appendNumber(speed, to: &out, at: codingPath, key: "speed")
        CanonicalJSON.appendLiteral(#","stepCount":"#, to: &out)
        CanonicalJSON.append(stepCount.map(Int64.init), to: &out)
        out.append(0x7D)
    }
}

extension ActivitySlot: CanonicalJSONWritable {
    /// `{"calories":…,"distance":…,"intervalDate":…,"steps":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"calories":"#, to: &out)
        try CanonicalJSON.appendNumber(calories, to: &out, at: codingPath, key: "calories")
        CanonicalJSON.appendLiteral(#","distance":"#, to: &out)
        CanonicalJSON.append(distance.map(Int64.init), to: &out)
        CanonicalJSON.appendLiteral(#","intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        CanonicalJSON.appendLiteral(#","steps":"#, to: &out)
        CanonicalJSON.append(steps.map(Int64.init), to: &out)
        out.append(0x7D)
    }
}

extension BodyTempSlot: CanonicalJSONWritable {
    /// `{"intervalDate":…,"temp":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        CanonicalJSON.appendLiteral(#","temp":"#, to: &out)
        try CanonicalJSON.appendNumber(temp, to: &out, at: codingPath, key: "temp")
        out.append(0x7D)
    }
}

extension CoreBodyTemperatureSlot: CanonicalJSONWritable {
    /// `{"coreBodyTemperature":…,"intervalDate":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"coreBodyTemperature":"#, to: &out)
        try CanonicalJSON.appendNumber(coreBodyTemperature, to: &out, at: codingPath, key: "coreBodyTemperature")
        CanonicalJSON.appendLiteral(#","intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        out.append(0x7D)
    }
}

extension Spo2Slot: CanonicalJSONWritable {
    /// `{"intervalDate":…,"spo2":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"intervalDate":"#, to: &out)
        TextBytes.append(intervalDate, to: &out)
        CanonicalJSON.appendLiteral(#","spo2":"#, to: &out)
        TextBytes.append(spo2, to: &out)
        out.append(0x7D)
    }
}

extension EmographySlot: CanonicalJSONWritable {
    /// `{"date":…,"stressLevelSkinConductance":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"date":"#, to: &out)
        TextBytes.append(date, to: &out)
        CanonicalJSON.appendLiteral(#","stressLevelSkinConductance":"#, to: &out)
        try CanonicalJSON.appendNumber(stressLevelSkinConductance, to: &out, at: codingPath, key: "stressLevelSkinConductance")
        out.append(0x7D)
    }
}

extension SleepSlot: CanonicalJSONWritable {
    /// `{"date":…,"intervalSeconds":…,"sleepType":…}`.
    public func appendCanonicalJSON(to out: inout [UInt8], codingPath: [any CodingKey]) throws {
        CanonicalJSON.appendLiteral(#"{"date":"#, to: &out)
        TextBytes.append(date, to: &out)
        CanonicalJSON.appendLiteral(#","intervalSeconds":"#, to: &out)
        TextBytes.append(intervalSeconds, to: &out)
        CanonicalJSON.appendLiteral(#","sleepType":"#, to: &out)
        TextBytes.append(sleepType, to: &out)
        out.append(0x7D)
    }
}
