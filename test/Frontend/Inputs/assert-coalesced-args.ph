@assert_coalesced(1)
kernel k(X: tensor<f32>[N]) {
}
