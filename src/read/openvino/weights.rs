//! The `.bin` weights file and the `Const` layer readers.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

use super::error::IrError;
use super::model::Layer;
use super::shape::ElementType;
use crate::graph::{bf16_to_f64, f16_to_f64};

/// A `Const` layer's `<data element_type shape offset size/>`, validated: the shape is
/// static, the element count does not overflow, and for fixed-width types
/// `size == ceil(elements * bits / 8)` (OpenVINO itself only requires `size >=` that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstInfo {
    /// Layer id.
    pub layer: u64,
    /// `element_type`.
    pub element_type: ElementType,
    /// `shape` (empty for a scalar).
    pub shape: Vec<u64>,
    /// Product of `shape`.
    pub elements: u64,
    /// `offset` into the weights.
    pub offset: u64,
    /// `size` in bytes.
    pub size: u64,
}

fn attr_u64(layer: &Layer, name: &str) -> Result<u64, IrError> {
    let text = layer.attr_str(name)?;
    text.trim().parse().map_err(|_| IrError::InvalidInteger {
        layer: layer.id,
        attribute: name.to_string(),
        text: text.to_string(),
        index: 0,
    })
}

impl ConstInfo {
    /// Read and validate the `<data>` of a `Const` layer, capping the shape rank at
    /// `max_rank`.
    pub fn from_layer(layer: &Layer, max_rank: usize) -> Result<ConstInfo, IrError> {
        if !layer.is_const() {
            return Err(IrError::NotConst {
                layer: layer.id,
                type_name: layer.type_name.clone(),
            });
        }
        let element_type = layer.attr_element_type("element_type")?;
        let shape_ps = layer.attr_shape("shape", max_rank)?;
        let not_static = || IrError::ConstShapeNotStatic {
            layer: layer.id,
            text: layer.data_attr("shape").unwrap_or("").to_string(),
        };
        let shape: Vec<u64> = shape_ps
            .to_static()
            .ok_or_else(not_static)?
            .into_iter()
            .map(|d| d as u64) // parse_partial_shape never yields negative static dims
            .collect();
        let elements = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| IrError::ConstElementCountOverflow {
                layer: layer.id,
                shape: shape.clone(),
            })?;
        let offset = attr_u64(layer, "offset")?;
        let size = attr_u64(layer, "size")?;
        if let Some(bits) = element_type.bit_width() {
            let expected = elements
                .checked_mul(bits)
                .map(|b| b / 8 + u64::from(b % 8 != 0))
                .ok_or_else(|| IrError::ConstElementCountOverflow {
                    layer: layer.id,
                    shape: shape.clone(),
                })?;
            if size != expected {
                return Err(IrError::ConstSizeMismatch {
                    layer: layer.id,
                    size,
                    elements,
                    element_type: element_type.name(),
                    expected,
                });
            }
        }
        Ok(ConstInfo {
            layer: layer.id,
            element_type,
            shape,
            elements,
            offset,
            size,
        })
    }
}

enum Source {
    Memory(Vec<u8>),
    File(Mutex<File>),
}

/// The weights (`.bin`) of a model. Byte ranges are read on demand: an opened file is
/// not loaded into memory, only the ranges a reader asks for (each bounds-checked
/// against the file length and capped by the element limit).
pub struct Weights {
    source: Source,
    len: u64,
    max_const_elements: u64,
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Weights")
            .field(
                "source",
                &match self.source {
                    Source::Memory(_) => "memory",
                    Source::File(_) => "file",
                },
            )
            .field("len", &self.len)
            .field("max_const_elements", &self.max_const_elements)
            .finish()
    }
}

impl Weights {
    /// Weights held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Weights {
        Weights {
            len: bytes.len() as u64,
            source: Source::Memory(bytes),
            max_const_elements: super::IrLimits::default().max_const_elements,
        }
    }

    /// No weights (a model without a `.bin`); every constant read fails as out of bounds.
    pub fn empty() -> Weights {
        Self::from_bytes(Vec::new())
    }

    /// Open a `.bin` file for on-demand reads; anything but a regular file (a FIFO, a
    /// device, a directory) is refused ([`crate::read::files::open_regular`]).
    pub fn open(path: &Path) -> Result<Weights, IrError> {
        let (file, len) =
            crate::read::files::open_regular(path).map_err(|e| IrError::file(path, e))?;
        Ok(Weights {
            source: Source::File(Mutex::new(file)),
            len,
            max_const_elements: super::IrLimits::default().max_const_elements,
        })
    }

    /// Set the most elements a constant reader will decode.
    pub fn with_max_const_elements(mut self, max: u64) -> Weights {
        self.max_const_elements = max;
        self
    }

    /// Length of the weights in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no weights.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn read_range(&self, offset: u64, len: u64) -> Result<Vec<u8>, IrError> {
        // Callers have checked offset + len <= self.len.
        match &self.source {
            Source::Memory(b) => Ok(b[offset as usize..(offset + len) as usize].to_vec()),
            Source::File(m) => {
                let wio = |source| IrError::WeightsIo {
                    offset,
                    len,
                    source,
                };
                let mut f = m.lock().unwrap_or_else(|p| p.into_inner());
                f.seek(SeekFrom::Start(offset)).map_err(wio)?;
                let mut buf = Vec::new();
                (&mut *f).take(len).read_to_end(&mut buf).map_err(wio)?;
                if buf.len() as u64 != len {
                    return Err(wio(std::io::ErrorKind::UnexpectedEof.into()));
                }
                Ok(buf)
            }
        }
    }

    /// Validate a `Const` layer and return its info and raw little-endian bytes.
    pub fn const_bytes(&self, layer: &Layer) -> Result<(ConstInfo, Vec<u8>), IrError> {
        let info = ConstInfo::from_layer(layer, super::shape::DEFAULT_MAX_RANK)?;
        if info.elements > self.max_const_elements {
            return Err(IrError::ConstTooLarge {
                layer: info.layer,
                elements: info.elements,
                max: self.max_const_elements,
            });
        }
        // Types without a fixed width (string) have an unchecked `size`; cap it too.
        let max_bytes = self.max_const_elements.saturating_mul(8);
        if info.size > max_bytes {
            return Err(IrError::ConstBytesTooLarge {
                layer: info.layer,
                size: info.size,
                max: max_bytes,
            });
        }
        let end = info.offset.checked_add(info.size);
        if !matches!(end, Some(e) if e <= self.len) {
            return Err(IrError::ConstOutOfBounds {
                layer: info.layer,
                offset: info.offset,
                size: info.size,
                bin_len: self.len,
            });
        }
        let bytes = self.read_range(info.offset, info.size)?;
        Ok((info, bytes))
    }

    /// The values of an integer `Const` (i8/i16/i32/i64, u8/u16/u32/u64, boolean) as
    /// i64. A u64 value above `i64::MAX` is an error, not a wrap.
    pub fn const_i64_values(&self, layer: &Layer) -> Result<Vec<i64>, IrError> {
        let (info, b) = self.const_bytes(layer)?;
        use ElementType::*;
        fn chunks<const N: usize>(b: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
            b.chunks_exact(N).map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                a
            })
        }
        Ok(match info.element_type {
            Boolean => b.iter().map(|&x| i64::from(x != 0)).collect(),
            I8 => b.iter().map(|&x| i64::from(x as i8)).collect(),
            U8 => b.iter().map(|&x| i64::from(x)).collect(),
            I16 => chunks::<2>(&b)
                .map(|a| i64::from(i16::from_le_bytes(a)))
                .collect(),
            U16 => chunks::<2>(&b)
                .map(|a| i64::from(u16::from_le_bytes(a)))
                .collect(),
            I32 => chunks::<4>(&b)
                .map(|a| i64::from(i32::from_le_bytes(a)))
                .collect(),
            U32 => chunks::<4>(&b)
                .map(|a| i64::from(u32::from_le_bytes(a)))
                .collect(),
            I64 => chunks::<8>(&b).map(i64::from_le_bytes).collect(),
            U64 => chunks::<8>(&b)
                .map(u64::from_le_bytes)
                .enumerate()
                .map(|(i, v)| {
                    i64::try_from(v).map_err(|_| IrError::ConstValueOverflow {
                        layer: info.layer,
                        index: i as u64,
                        value: v,
                    })
                })
                .collect::<Result<_, _>>()?,
            other => {
                return Err(IrError::ConstTypeMismatch {
                    layer: info.layer,
                    element_type: other.name(),
                    reader: "integer",
                })
            }
        })
    }

    /// The values of a floating-point `Const` (f32, f16, bf16, f64) as f64.
    pub fn const_f64_values(&self, layer: &Layer) -> Result<Vec<f64>, IrError> {
        let (info, b) = self.const_bytes(layer)?;
        use ElementType::*;
        Ok(match info.element_type {
            F32 => b
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
            F64 => b
                .chunks_exact(8)
                .map(|c| {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(c);
                    f64::from_le_bytes(a)
                })
                .collect(),
            F16 => b
                .chunks_exact(2)
                .map(|c| f16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
            Bf16 => b
                .chunks_exact(2)
                .map(|c| bf16_to_f64(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
            other => {
                return Err(IrError::ConstTypeMismatch {
                    layer: info.layer,
                    element_type: other.name(),
                    reader: "float",
                })
            }
        })
    }
}
