#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_wavelet.h>
#include <gsl/gsl_wavelet2d.h>

// GSL's type descriptors are mutable C globals, which Swift 6 refuses to touch;
// these accessors hand them over as plain values.
static inline const gsl_rng_type *fpb_rng_mt19937(void) { return gsl_rng_mt19937; }
static inline const gsl_wavelet_type *fpb_wavelet_haar(void) { return gsl_wavelet_haar; }
