// The metrics-record decoder's hot loop in C: copy each field of fixed-size records into its own
// column and mark values outside their valid range. On x86-64 AVX2 when the CPU has it (32 records
// per step; compiled for AVX-512VL too, for its 32 registers), SSE2 otherwise (16 per step); values
// stay in registers between the copy and the check.
// Portable C elsewhere and for the last records of a batch.
//
// Range marks are bitsets, one per field: bit (i % 16) of word (i / 16) is set when record i's
// value is neither the "no value" sentinel nor within the field's valid range.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Field numbers: the bit positions of Swift's SlotFields.
enum bracelet_field {
    BRACELET_BPM = 0, BRACELET_BPM_Q, BRACELET_BREATH, BRACELET_BREATH_Q, BRACELET_ACTIVITY, BRACELET_STEPS,
    BRACELET_SPEED, BRACELET_SKIN, BRACELET_ENERGY, BRACELET_ACTIVE, BRACELET_WEARING, BRACELET_STAGE,
    BRACELET_BATTERY, BRACELET_SPO2, BRACELET_SPO2_Q, BRACELET_CORE, BRACELET_EDA, BRACELET_FIELD_COUNT
};

/// Where the decoder writes: one column per field and one range bitset per field.
typedef struct {
    uint8_t *bpm, *bpm_q, *breath_q, *activity, *wearing, *stage, *battery, *spo2, *spo2_q;
    uint16_t *breath, *steps, *speed, *skin, *core, *eda;
    uint32_t *energy, *active;
    uint16_t *bad[BRACELET_FIELD_COUNT];
} bracelet_columns;

/// Decodes `count` records of `stride` bytes: the 13 fields every model has (bytes 0..22), and with
/// `v2` set the 4 V2 fields too (bytes 24..29; V2 records are 32 bytes). `max_steps` and
/// `max_energy` are the per-slot limits for the slot length.
void bracelet_decode(const uint8_t *records, size_t count, size_t stride, int v2,
                     uint32_t max_steps, uint32_t max_energy, const bracelet_columns *c);
