// Command sets times the reference's NumericBlobSet.Materialize on blob sets
// written by bench/sets.mjs: the file holds blobs back to back, each after
// its length as a little-endian uint32. It prints one JSON line with the
// medians (ms) of decoding every blob (NewNumericDecoder + Decode), of
// ordering them (NewNumericBlobSet) and of Materialize. Run with GOMAXPROCS=1.
//
//	GOMAXPROCS=1 go run . -file blobs.bin -runs 5
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/arloliu/mebo"
	"github.com/arloliu/mebo/blob"
)

func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func main() {
	file := flag.String("file", "", "blobs, each after its uint32 LE length")
	runs := flag.Int("runs", 5, "timed runs")
	warmup := flag.Int("warmup", 3, "untimed runs before them (the SDK's wasm is tiered up by V8 over its first runs)")
	flag.Parse()
	data, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var raw [][]byte
	for at := 0; at < len(data); {
		n := int(binary.LittleEndian.Uint32(data[at:]))
		raw = append(raw, data[at+4:at+4+n])
		at += 4 + n
	}
	var decodeMs, materializeMs []float64
	coldMs := 0.0
	points := 0
	for r := 0; r < *warmup+*runs; r++ {
		t0 := time.Now()
		blobs := make([]blob.NumericBlob, len(raw))
		for i, b := range raw {
			d, err := mebo.NewNumericDecoder(b)
			if err == nil {
				blobs[i], err = d.Decode()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		set, err := mebo.NewNumericBlobSet(blobs)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t1 := time.Now()
		m := set.Materialize()
		t2 := time.Now()
		if r == 0 {
			coldMs = float64(t2.Sub(t1).Microseconds()) / 1000
		}
		if r >= *warmup {
			decodeMs = append(decodeMs, float64(t1.Sub(t0).Microseconds())/1000)
			materializeMs = append(materializeMs, float64(t2.Sub(t1).Microseconds())/1000)
		}
		points = 0
		for _, id := range m.MetricIDs() {
			points += m.DataPointCount(id)
		}
	}
	out, _ := json.Marshal(map[string]any{"blobs": len(raw), "points": points, "openMs": median(decodeMs), "materializeMs": median(materializeMs), "coldMaterializeMs": coldMs})
	fmt.Println(string(out))
}
