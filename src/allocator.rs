//! The process's allocator: mimalloc (decision 0005), entered by its unaligned functions
//! whenever a layout allows it.
//!
//! The `mimalloc` crate's allocator calls `mi_malloc_aligned` for every layout. Almost
//! every allocation of Rust code asks for an alignment of 8 bytes or less, which every
//! block of mimalloc has (its blocks are whole words, and those of 16 bytes or more are
//! 16-byte aligned), and `mi_malloc` reaches the same free list through fewer calls. A
//! tool call makes several hundred allocations, so the calls saved show in its figures.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The largest alignment every block of mimalloc has: a machine word.
const WORD: usize = std::mem::size_of::<usize>();

pub struct Mimalloc;

// SAFETY: every function hands the layout's size and alignment to mimalloc's function
// of the same contract: the unaligned ones only when the alignment is at most a word,
// which every mimalloc block meets; `mi_free` and the reallocations accept any block
// either kind returned.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if layout.align() <= WORD {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if layout.align() <= WORD {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from one of the functions above.
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from one of the functions above, with this alignment.
        unsafe {
            if layout.align() <= WORD {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout gets a block of its alignment, zeroed when asked, that keeps its
    /// bytes through a reallocation, whichever of mimalloc's functions serves it.
    #[test]
    #[allow(unsafe_code)]
    fn every_layout_gets_its_alignment_and_keeps_its_bytes() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 15, 16, 24, 100, 1000, 70_000] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: non-zero sizes, and each block is freed by the same allocator.
                unsafe {
                    let zeroed = Mimalloc.alloc_zeroed(layout);
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} @ {align}");
                    assert!((0..size).all(|i| *zeroed.add(i) == 0), "{size} @ {align}");
                    Mimalloc.dealloc(zeroed, layout);

                    let block = Mimalloc.alloc(layout);
                    assert_eq!(block as usize % align, 0, "{size} @ {align}");
                    for i in 0..size {
                        *block.add(i) = (i % 251) as u8;
                    }
                    let grown = Mimalloc.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} @ {align}");
                    assert!((0..size).all(|i| *grown.add(i) == (i % 251) as u8));
                    Mimalloc.dealloc(grown, Layout::from_size_align_unchecked(size * 3, align));
                }
            }
        }
    }
}
