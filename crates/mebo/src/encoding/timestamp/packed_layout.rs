//! deltapacked's group layout, fixed by each control byte: the width of each
//! value, where it sits, and the group's length. The decoder (`delta_packed`)
//! and the shuffle kernel (`delta_simd`) both read groups by these tables.

/// Values a group holds.
pub(super) const GROUP: usize = 4;

/// Byte width of each 2-bit width code.
pub(super) const WIDTHS: [u8; 4] = [1, 2, 4, 8];

/// Where each value of a group sits after its control byte, where it ends, and
/// which low bytes of an 8-byte little-endian load belong to it.
#[derive(Clone, Copy)]
pub(super) struct GroupLayout {
    pub(super) offsets: [u8; GROUP],
    pub(super) ends: [u8; GROUP],
    pub(super) masks: [u64; GROUP],
}

const fn group_layouts() -> [GroupLayout; 256] {
    let mut layouts = [GroupLayout { offsets: [0; GROUP], ends: [0; GROUP], masks: [0; GROUP] }; 256];
    let mut control = 0;
    while control < 256 {
        let mut offset = 0u8;
        let mut lane = 0;
        while lane < GROUP {
            let width = WIDTHS[(control >> (2 * lane)) & 3];
            layouts[control].offsets[lane] = offset;
            layouts[control].masks[lane] = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
            offset += width;
            layouts[control].ends[lane] = offset;
            lane += 1;
        }
        control += 1;
    }
    layouts
}

/// The layouts, built on first use: 10 KB of data a module would carry (about
/// 2 kB gzipped) against a few hundred bytes of the code that builds them.
pub(super) fn group_layouts_built() -> &'static [GroupLayout; 256] {
    static LAYOUTS: std::sync::OnceLock<[GroupLayout; 256]> = std::sync::OnceLock::new();
    LAYOUTS.get_or_init(group_layouts)
}

/// Bytes a whole group with this control byte takes, the control byte included.
#[inline(always)]
pub(super) fn group_len(control: u8) -> usize {
    usize::from(GROUP_LENS[usize::from(control)])
}

/// [`group_len`] by control byte: a table of its own, one plain load, as the
/// next group's position waits on it (through the layouts' 40-byte
/// entries the walk took 1.36 ns a point, with this 0.94).
pub(super) static GROUP_LENS: [u8; 256] = {
    // Evaluated at compile time: only the lengths are stored.
    const LAYOUTS: [GroupLayout; 256] = group_layouts();
    let mut lens = [0; 256];
    let mut control = 0;
    while control < 256 {
        lens[control] = 1 + LAYOUTS[control].ends[GROUP - 1];
        control += 1;
    }
    lens
};
