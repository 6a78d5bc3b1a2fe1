//! The AVX2 kernels: the batch engine (kernels/generic) with 8 keys per vector ([`lanes`]), and a
//! single query whose 8 probe positions come from one vector ([`single`]).

mod lanes;
mod single;

use crate::kernels::generic::engine::engine_entries;
use crate::kernels::x86::features::avx2;
use lanes::{GROUPS, LANES};
use std::arch::x86_64::__m256i;

pub(crate) use single::may_match_c_abi;

engine_entries!(avx2, __m256i, "The CPU must support AVX2.");
