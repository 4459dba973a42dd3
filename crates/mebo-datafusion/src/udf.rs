//! `mebo_id('cpu.user')`: a metric's id from its name (xxHash64), so a query
//! filters by name on blobs that store only ids. Immutable: on a literal it
//! folds to a constant at planning, which the scan then reads as a metric
//! filter.

use std::sync::Arc;

use arrow::array::{Array, AsArray, UInt64Array};
use arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};

/// The function's name in SQL.
pub const MEBO_ID: &str = "mebo_id";

/// The `mebo_id` function.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MeboId {
    signature: Signature,
}

impl Default for MeboId {
    fn default() -> Self {
        MeboId { signature: Signature::string(1, Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for MeboId {
    fn name(&self) -> &str {
        MEBO_ID
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::UInt64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [name] = args.args.as_slice() else {
            return exec_err!("mebo_id takes one argument, a metric name");
        };
        match name {
            ColumnarValue::Scalar(s) => {
                let id = match s {
                    ScalarValue::Utf8(v) | ScalarValue::LargeUtf8(v) | ScalarValue::Utf8View(v) => v.as_deref().map(mebo::metric_id),
                    other => return exec_err!("mebo_id takes a string, not {}", other.data_type()),
                };
                Ok(ColumnarValue::Scalar(ScalarValue::UInt64(id)))
            }
            ColumnarValue::Array(a) => {
                let ids: UInt64Array = match a.data_type() {
                    DataType::Utf8 => a.as_string::<i32>().iter().map(|v| v.map(mebo::metric_id)).collect(),
                    DataType::LargeUtf8 => a.as_string::<i64>().iter().map(|v| v.map(mebo::metric_id)).collect(),
                    DataType::Utf8View => a.as_string_view().iter().map(|v| v.map(mebo::metric_id)).collect(),
                    other => return exec_err!("mebo_id takes a string, not {other}"),
                };
                Ok(ColumnarValue::Array(Arc::new(ids) as Arc<dyn Array>))
            }
        }
    }
}

/// `mebo_id` as a DataFusion function, to register on a context.
pub fn mebo_id_udf() -> ScalarUDF {
    ScalarUDF::from(MeboId::default())
}
