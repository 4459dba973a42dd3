// The reference implementation (mebo Go v1.9.0) timed in the same run as
// everything else of `npm run bench`, on the same blobs and with the same
// sampling plan (bench/harness.mjs): decode + Materialize(), the reference's
// closest match to decoding every column into arrays, as in
// ../shared/reference/go-v1.9-epyc.json (decode_materialize_ns).
//
//	go run . -bench-dir ../../../shared/bench -out FILE [-quick]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/arloliu/mebo/blob"
)

type benchCase struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"`
	File    string         `json:"file"`
	Options map[string]any `json:"options"`
}

type row struct {
	Config   string  `json:"config"`
	Runtime  string  `json:"runtime"`
	Op       string  `json:"op"`
	Points   int     `json:"points"`
	Bytes    int     `json:"bytes"`
	MedianNs float64 `json:"median_ns"`
	MinNs    float64 `json:"min_ns"`
	Runs     int     `json:"runs"`
}

type plan struct {
	samples int
	minDur  time.Duration
	warmup  time.Duration
}

var sink int

// measure mirrors bench/harness.mjs: warm up, then samples of enough
// repetitions to last minDur each; nanoseconds per call.
func measure(p plan, op func() int) (median, min float64) {
	start := time.Now()
	calls := 0
	for calls < 3 || time.Since(start) < p.warmup {
		sink += op()
		calls++
	}
	perCall := float64(time.Since(start).Nanoseconds()) / float64(calls)
	reps := int(float64(p.minDur.Nanoseconds())/perCall) + 1
	times := make([]float64, p.samples)
	for s := range times {
		t := time.Now()
		for r := 0; r < reps; r++ {
			sink += op()
		}
		times[s] = float64(time.Since(t).Nanoseconds()) / float64(reps)
	}
	sort.Float64s(times)
	return times[len(times)/2], times[0]
}

func opt(c benchCase, key string) string {
	v, _ := c.Options[key].(string)
	return v
}

// configName is bench/harness.mjs's configName.
func configName(c benchCase) string {
	if c.Kind == "text" {
		return fmt.Sprintf("text-%s-%s", opt(c, "timestampEncoding"), opt(c, "dataCompression"))
	}
	base := strings.Join([]string{opt(c, "timestampEncoding"), opt(c, "timestampCompression"), opt(c, "valueEncoding"), opt(c, "valueCompression")}, "-")
	if layout := opt(c, "layout"); layout != "" && layout != "v1" {
		return base + "-" + layout
	}
	return base
}

func main() {
	benchDir := flag.String("bench-dir", "../../../shared/bench", "the bench set")
	out := flag.String("out", "", "write JSON rows here")
	quick := flag.Bool("quick", false, "few samples")
	flag.Parse()

	p := plan{samples: 40, minDur: 2 * time.Millisecond, warmup: 150 * time.Millisecond}
	if *quick {
		p = plan{samples: 7, minDur: time.Millisecond, warmup: 20 * time.Millisecond}
	}
	raw, err := os.ReadFile(filepath.Join(*benchDir, "manifest.json"))
	check(err)
	var manifest struct {
		Cases []benchCase `json:"cases"`
	}
	check(json.Unmarshal(raw, &manifest))

	rows := []row{}
	for _, c := range manifest.Cases {
		data, err := os.ReadFile(filepath.Join(*benchDir, c.File))
		check(err)
		var op func() int
		points := 0
		if c.Kind == "text" {
			op = func() int {
				dec, err := blob.NewTextDecoder(data)
				check(err)
				b, err := dec.Decode()
				check(err)
				return b.Materialize().MetricCount()
			}
			dec, _ := blob.NewTextDecoder(data)
			b, _ := dec.Decode()
			m := b.Materialize()
			for _, id := range m.MetricIDs() {
				points += m.DataPointCount(id)
			}
		} else {
			op = func() int {
				dec, err := blob.NewNumericDecoder(data)
				check(err)
				b, err := dec.Decode()
				check(err)
				return b.Materialize().MetricCount()
			}
			dec, _ := blob.NewNumericDecoder(data)
			b, _ := dec.Decode()
			m := b.Materialize()
			for _, id := range m.MetricIDs() {
				points += m.DataPointCount(id)
			}
		}
		runtime.GC()
		median, min := measure(p, op)
		r := row{Config: configName(c), Runtime: "go-reference", Op: "decode", Points: points, Bytes: len(data), MedianNs: median, MinNs: min, Runs: p.samples}
		fmt.Fprintf(os.Stderr, "  %-17s %-6s %-38s %9.1f µs\n", r.Runtime, r.Op, r.Config, median/1e3)
		rows = append(rows, r)
	}
	if *out != "" {
		buf, err := json.Marshal(rows)
		check(err)
		check(os.WriteFile(*out, buf, 0o644))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
