module @jit_ring attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["cp"=4]>
  func.func public @main(%arg0: tensor<4x1024x128xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"cp"}, {}, {}]>}) -> (tensor<4x1024x128xbf16> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"cp"}, {}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"cp"}, {}, {}]>] out_shardings=[<@mesh, [{"cp"}, {}, {}]>] manual_axes={"cp"} (%arg1: tensor<1x1024x128xbf16>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1) : tensor<i32>, tensor<1x1024x128xbf16>
       cond {
        %c_1 = stablehlo.constant dense<3> : tensor<i32>
        %2 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %2 = "stablehlo.collective_permute"(%iterArg_0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<1x1024x128xbf16>) -> tensor<1x1024x128xbf16>
        %c_2 = stablehlo.constant dense<1> : tensor<i32>
        %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
        stablehlo.return %3, %2 : tensor<i32>, tensor<1x1024x128xbf16>
      }
      sdy.return %1#1 : tensor<1x1024x128xbf16>
    } : (tensor<4x1024x128xbf16>) -> tensor<4x1024x128xbf16>
    return %0 : tensor<4x1024x128xbf16>
  }
}
