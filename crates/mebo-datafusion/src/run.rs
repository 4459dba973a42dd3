//! Running SQL text and printing results: what `mebo-sql` does, and what
//! the tests call to compare with it.

use std::io::Write;
use std::str::FromStr;
use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::context::SessionContext;
use datafusion::physical_plan::{collect, ExecutionPlan, ExecutionPlanVisitor};
use datafusion::sql::parser::DFParser;

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// CSV with a header row; integers (such as `metric_id`) in decimal.
    Csv,
    /// One JSON array of row objects per statement, one line each.
    Json,
}

impl FromStr for OutputFormat {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "table" => Ok(OutputFormat::Table),
            "csv" => Ok(OutputFormat::Csv),
            "json" => Ok(OutputFormat::Json),
            other => Err(format!("--format is table, csv or json, not {other:?}")),
        }
    }
}

/// A statement's result and the plan that produced it (its metrics filled).
pub struct QueryResult {
    /// The rows.
    pub batches: Vec<RecordBatch>,
    /// The schema of the rows (also when there are none).
    pub schema: arrow::datatypes::SchemaRef,
    /// The executed plan.
    pub plan: Arc<dyn ExecutionPlan>,
}

/// Run every statement of `sql` in order.
pub async fn query_all(ctx: &SessionContext, sql: &str) -> Result<Vec<QueryResult>> {
    let mut results = Vec::new();
    for_each_statement(ctx, sql, |result| {
        results.push(result);
        Ok(())
    })
    .await?;
    Ok(results)
}

/// Run the statements of `sql` in order, handing each result to `done`
/// before the next statement starts.
async fn for_each_statement(ctx: &SessionContext, sql: &str, mut done: impl FnMut(QueryResult) -> Result<()>) -> Result<()> {
    for statement in DFParser::parse_sql(sql)? {
        let plan = ctx.state().statement_to_plan(statement).await?;
        let frame = ctx.execute_logical_plan(plan).await?;
        let plan = frame.create_physical_plan().await?;
        let schema = plan.schema();
        let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await?;
        done(QueryResult { batches, schema, plan })?;
    }
    Ok(())
}

/// Run one statement.
pub async fn query(ctx: &SessionContext, sql: &str) -> Result<QueryResult> {
    let mut results = query_all(ctx, sql).await?;
    match (results.pop(), results.is_empty()) {
        (Some(result), true) => Ok(result),
        _ => Err(DataFusionError::Plan(format!("expected one statement: {sql}"))),
    }
}

/// The sum of one scan counter (see [`SCAN_METRICS`](crate::SCAN_METRICS))
/// over every node of an executed plan.
pub fn scan_counter(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    struct Sum<'a>(&'a str, usize);
    impl ExecutionPlanVisitor for Sum<'_> {
        type Error = DataFusionError;
        fn pre_visit(&mut self, plan: &dyn ExecutionPlan) -> Result<bool> {
            if let Some(metrics) = plan.metrics() {
                self.1 += metrics.sum_by_name(self.0).map_or(0, |v| v.as_usize());
            }
            Ok(true)
        }
    }
    let mut sum = Sum(name, 0);
    // The visitor returns no error of its own.
    let _ = datafusion::physical_plan::accept(plan.as_ref(), &mut sum);
    sum.1
}

/// Run the statements and print each result to `out`; returns how many
/// unreadable files the scans skipped.
pub async fn run_statements(ctx: &SessionContext, sql: &str, format: OutputFormat, out: &mut dyn Write) -> Result<usize> {
    let mut skipped = 0;
    for_each_statement(ctx, sql, |result| {
        skipped += scan_counter(&result.plan, "files_skipped");
        match result.schema.fields().is_empty() {
            true => Ok(()), // DDL: nothing to print
            false => print(&result, format, out),
        }
    })
    .await?;
    Ok(skipped)
}

fn print(result: &QueryResult, format: OutputFormat, out: &mut dyn Write) -> Result<()> {
    let empty;
    let batches: &[RecordBatch] = if result.batches.is_empty() {
        empty = [RecordBatch::new_empty(Arc::clone(&result.schema))];
        &empty
    } else {
        &result.batches
    };
    match format {
        OutputFormat::Table => writeln!(out, "{}", arrow::util::pretty::pretty_format_batches(batches)?)?,
        OutputFormat::Csv => {
            let mut writer = arrow::csv::WriterBuilder::new().with_header(true).build(&mut *out);
            for batch in batches {
                writer.write(batch)?;
            }
        }
        OutputFormat::Json => {
            let mut writer = arrow::json::ArrayWriter::new(&mut *out);
            for batch in batches {
                writer.write(batch)?;
            }
            writer.finish()?;
            writeln!(out)?;
        }
    }
    Ok(())
}
