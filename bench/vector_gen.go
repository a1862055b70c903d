package bench

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// Clustered makes embeddings shaped like a text model's rather than
// uniform random ones (HNSW's worst case, and unlike any real store):
// Topics centroids of skewed sizes (a few topics hold most memories, as a
// workspace talks mostly about a few things), and each vector is
//
//	a shared direction (text embeddings are anisotropic: two unrelated
//	texts are at cosine ≈ 0.1, not 0)
//	+ its topic's centroid
//	+ variation along TopicDirections directions of its own topic (the low
//	  intrinsic dimension measured on text embeddings)
//	+ a little isotropic noise,
//
// normalised. Two memories of one topic are at cosine ≈ 0.65, of two
// topics ≈ 0.12. The same seed gives the same vector.
type Clustered struct {
	Dim       int
	mean      []float64
	centroids [][]float64
	basis     [][][]float64 // topic → direction → coordinates
	cdf       []float64
}

// Topics and TopicDirections shape Clustered's vectors.
const (
	Topics          = 300
	TopicDirections = 16
)

const (
	sharedWeight   = 0.5
	topicSpread    = 0.18 // per direction: ≈ 0.72 along the topic's directions in all
	isotropicNoise = 0.3  // in all
)

// NewClustered draws the topics of dim-dimensional embeddings.
func NewClustered(dim int, seed uint64) *Clustered {
	r := rand.New(rand.NewPCG(seed, uint64(dim)))
	unit := func() []float64 {
		v := make([]float64, dim)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		normalize64(v)
		return v
	}
	c := &Clustered{Dim: dim, mean: unit(), centroids: make([][]float64, Topics), basis: make([][][]float64, Topics), cdf: make([]float64, Topics)}
	total := 0.0
	for t := range Topics {
		c.centroids[t] = unit()
		c.basis[t] = make([][]float64, TopicDirections)
		for j := range TopicDirections {
			c.basis[t][j] = unit()
		}
		total += 1 / math.Pow(float64(t+1), 0.7)
		c.cdf[t] = total
	}
	for t := range c.cdf {
		c.cdf[t] /= total
	}
	return c
}

// Vector is the embedding of seed.
func (c *Clustered) Vector(seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	t := min(sort.SearchFloat64s(c.cdf, r.Float64()), Topics-1)
	v := make([]float64, c.Dim)
	cen := c.centroids[t]
	for i := range v {
		v[i] = sharedWeight*c.mean[i] + cen[i]
	}
	for _, b := range c.basis[t] {
		z := topicSpread * r.NormFloat64()
		for i := range v {
			v[i] += z * b[i]
		}
	}
	s := isotropicNoise / math.Sqrt(float64(c.Dim))
	for i := range v {
		v[i] += s * r.NormFloat64()
	}
	normalize64(v)
	out := make([]float32, c.Dim)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// Text is the embedding of a text, for the fake embeddings server: the
// same text always has the same vector.
func (c *Clustered) Text(text string) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	return c.Vector(h.Sum64())
}

func normalize64(v []float64) {
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 {
		return
	}
	for i := range v {
		v[i] /= n
	}
}
