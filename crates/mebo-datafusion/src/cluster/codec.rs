//! How a mebo scan travels to a Ballista cluster: the client sends the
//! logical plan, where a [`MeboTable`] is written as its paths and options;
//! the scheduler sends each stage's physical plan to executors, where a mebo
//! `DataSourceExec` is written as DataFusion's file scan config plus the
//! scan's options and narrowing, and a writer of blobs (`COPY … TO`,
//! `INSERT INTO`) as DataFusion's file sink config plus the options.
//! Everything else goes to Ballista's codecs.

use std::collections::BTreeSet;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::{internal_datafusion_err, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan, ScalarUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_datasource::file_scan_config::FileScanConfig;
use datafusion_datasource::file_sink_config::{FileSink, FileSinkConfig};
use datafusion_datasource::sink::DataSinkExec;
use datafusion_datasource::source::DataSourceExec;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::from_proto::parse_protobuf_file_scan_config;
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension};
use datafusion_proto::protobuf::{self, FileScanExecConf};
use prost::Message;

use crate::format::MeboFormatFactory;
use crate::options::MeboOptions;
use crate::pushdown::ScanFilter;
use crate::sink::MeboSink;
use crate::source::MeboSource;
use crate::table::MeboTable;
use crate::udf::{mebo_id_udf, MEBO_ID};

/// Leads a mebo table as written by [`MeboLogicalCodec`]. A protobuf
/// message never starts with a zero byte (field 0 does not exist), so the
/// codec tells its own nodes from Ballista's by the first bytes.
const TABLE_TAG: &[u8] = b"\0mebo-table/2";
/// Leads a mebo scan as written by [`MeboPhysicalCodec`].
const SCAN_TAG: &[u8] = b"\0mebo-scan/2";
/// The mebo file format of a `COPY … TO` as written by [`MeboLogicalCodec`].
const FORMAT_TAG: &[u8] = b"\0mebo-format/1";
/// Leads a writer of blobs as written by [`MeboPhysicalCodec`].
const SINK_TAG: &[u8] = b"\0mebo-sink/1";

#[derive(Clone, PartialEq, Message)]
struct TableNode {
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsNode>,
}

/// [`MeboOptions`] as the pairs of [`MeboOptions::to_pairs`].
#[derive(Clone, PartialEq, Message)]
struct OptionsNode {
    #[prost(message, repeated, tag = "1")]
    pairs: Vec<OptionPair>,
}

#[derive(Clone, PartialEq, Message)]
struct OptionPair {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(string, tag = "2")]
    value: String,
}

#[derive(Clone, PartialEq, Message)]
struct SinkNode {
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileSinkConfig>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsNode>,
}

#[derive(Clone, PartialEq, Message)]
struct ScanNode {
    #[prost(message, optional, tag = "1")]
    base_conf: Option<FileScanExecConf>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsNode>,
    /// Whether `metric_ids` narrows the scan (an empty set matches nothing).
    #[prost(bool, tag = "3")]
    by_metric: bool,
    #[prost(uint64, repeated, tag = "4")]
    metric_ids: Vec<u64>,
    #[prost(int64, optional, tag = "5")]
    ts_min: Option<i64>,
    #[prost(int64, optional, tag = "6")]
    ts_max: Option<i64>,
}

impl From<MeboOptions> for OptionsNode {
    fn from(o: MeboOptions) -> Self {
        OptionsNode { pairs: o.to_pairs().into_iter().map(|(key, value)| OptionPair { key, value }).collect() }
    }
}

impl TryFrom<Option<OptionsNode>> for MeboOptions {
    type Error = datafusion::error::DataFusionError;

    fn try_from(node: Option<OptionsNode>) -> Result<Self> {
        MeboOptions::default().with_pairs(node.iter().flat_map(|n| &n.pairs).map(|p| (&p.key, &p.value)))
    }
}

/// The bytes after `tag`, when `buf` starts with it.
fn tagged<'a>(buf: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    buf.strip_prefix(tag)
}

fn write_tagged(tag: &[u8], message: &impl Message, buf: &mut Vec<u8>) {
    buf.extend_from_slice(tag);
    buf.extend_from_slice(&message.encode_to_vec());
}

fn decode<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M> {
    M::decode(bytes).map_err(|e| internal_datafusion_err!("a mebo {what} that does not decode: {e}"))
}

/// `mebo_id` by name, for a plan read where the function is not registered.
fn mebo_udf(name: &str) -> Option<Arc<ScalarUDF>> {
    (name == MEBO_ID).then(|| Arc::new(mebo_id_udf()))
}

/// Ballista's logical codec, and mebo tables.
#[derive(Debug, Default)]
pub struct MeboLogicalCodec {
    ballista: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for MeboLogicalCodec {
    fn try_decode(&self, buf: &[u8], inputs: &[LogicalPlan], ctx: &TaskContext) -> Result<Extension> {
        self.ballista.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(bytes) = tagged(buf, TABLE_TAG) else {
            return self.ballista.try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node: TableNode = decode(bytes, "table")?;
        let options = MeboOptions::try_from(node.options)?;
        Ok(Arc::new(MeboTable::with_schema(&ctx.runtime_env(), &node.paths, options, schema)?))
    }

    fn try_encode_table_provider(&self, table_ref: &TableReference, node: Arc<dyn TableProvider>, buf: &mut Vec<u8>) -> Result<()> {
        match node.downcast_ref::<MeboTable>() {
            Some(table) => {
                let message = TableNode { paths: table.paths().to_vec(), options: Some(table.options().into()) };
                write_tagged(TABLE_TAG, &message, buf);
                Ok(())
            }
            None => self.ballista.try_encode_table_provider(table_ref, node, buf),
        }
    }

    fn try_decode_file_format(&self, buf: &[u8], ctx: &TaskContext) -> Result<Arc<dyn FileFormatFactory>> {
        match tagged(buf, FORMAT_TAG) {
            Some(bytes) => Ok(Arc::new(MeboFormatFactory::new(MeboOptions::try_from(Some(decode::<OptionsNode>(bytes, "format")?))?))),
            None => self.ballista.try_decode_file_format(buf, ctx),
        }
    }

    /// `COPY … STORED AS MEBO`: the format with its options (put there from
    /// the statement's by `CopyOptionsIntoFormat`: DataFusion's plan codec
    /// drops a `COPY`'s options). Ballista's own codecs would take any
    /// format for Arrow's.
    fn try_encode_file_format(&self, buf: &mut Vec<u8>, node: Arc<dyn FileFormatFactory>) -> Result<()> {
        match node.downcast_ref::<MeboFormatFactory>() {
            Some(factory) => {
                write_tagged(FORMAT_TAG, &OptionsNode::from(factory.options()), buf);
                Ok(())
            }
            None => self.ballista.try_encode_file_format(buf, node),
        }
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        mebo_udf(name).map_or_else(|| self.ballista.try_decode_udf(name, buf), Ok)
    }
}

/// Ballista's physical codec, and mebo scans.
#[derive(Debug, Default)]
pub struct MeboPhysicalCodec {
    ballista: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for MeboPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(bytes) = tagged(buf, SINK_TAG) {
            let node: SinkNode = decode(bytes, "writer")?;
            let config = node.config.as_ref().ok_or_else(|| internal_datafusion_err!("a mebo writer without its file sink config"))?;
            let sink = MeboSink::try_new(FileSinkConfig::try_from(config)?, MeboOptions::try_from(node.options)?)?;
            let [input] = inputs else {
                return Err(internal_datafusion_err!("a mebo writer with {} inputs", inputs.len()));
            };
            // The input was planned to any order the table asks for.
            return Ok(Arc::new(DataSinkExec::new(Arc::clone(input), Arc::new(sink), None)));
        }
        let Some(bytes) = tagged(buf, SCAN_TAG) else {
            return self.ballista.try_decode(buf, inputs, ctx, converter);
        };
        let node: ScanNode = decode(bytes, "scan")?;
        let base = node.base_conf.ok_or_else(|| internal_datafusion_err!("a mebo scan without its file scan config"))?;
        let filter = ScanFilter {
            metrics: node.by_metric.then(|| node.metric_ids.iter().copied().collect::<BTreeSet<u64>>()),
            ts_min: node.ts_min,
            ts_max: node.ts_max,
        };
        let table_schema = FileScanConfig::parse_table_schema_from_proto(&base)?;
        let source =
            MeboSource::new(table_schema, MeboOptions::try_from(node.options)?).with_scan_filter(filter).with_runtime(&ctx.runtime_env());
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let conf = parse_protobuf_file_scan_config(&base, &decode_ctx, converter, Arc::new(source))?;
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn try_encode(&self, node: Arc<dyn ExecutionPlan>, buf: &mut Vec<u8>, converter: &dyn PhysicalProtoConverterExtension) -> Result<()> {
        if let Some(sink) = node.downcast_ref::<DataSinkExec>().and_then(|exec| exec.sink().downcast_ref::<MeboSink>()) {
            let message = SinkNode { config: Some(sink.config().try_into()?), options: Some(sink.options().into()) };
            write_tagged(SINK_TAG, &message, buf);
            return Ok(());
        }
        let scan = node
            .downcast_ref::<DataSourceExec>()
            .and_then(|exec| exec.data_source().downcast_ref::<FileScanConfig>())
            .and_then(|conf| conf.file_source.downcast_ref::<MeboSource>().map(|source| (conf, source)));
        let Some((conf, source)) = scan else {
            return self.ballista.try_encode(node, buf, converter);
        };
        let filter = source.scan_filter();
        let message = ScanNode {
            base_conf: Some(serialize_file_scan_config(conf, self, converter)?),
            options: Some(source.options().into()),
            by_metric: filter.metrics.is_some(),
            metric_ids: filter.metrics.iter().flatten().copied().collect(),
            ts_min: filter.ts_min,
            ts_max: filter.ts_max,
        };
        write_tagged(SCAN_TAG, &message, buf);
        Ok(())
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        mebo_udf(name).map_or_else(|| self.ballista.try_decode_udf(name, buf), Ok)
    }
}
