// The one translation unit of the test programs that defines lab 10's
// provided sort (lbvh_sort.cuh): the student's lbvh.cu calls it, and the
// speed tests time it as the yardstick of the build.
#include "lbvh_sort.cuh"
