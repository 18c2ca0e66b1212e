;; The site's models' hot loops in WebAssembly SIMD: the your-sentence encoder's (encoder.js beside this file drives
;; them) and SmolLM2's (docs/widgets/smollm/llama.js): the float matrix product, then GELU and the softmax, which
;; need exp, four values at a time, and the products of quantized weights with float vectors. The build compiles
;; this file with wabt's wat2wasm (figures_src/engine/wasm.py) and publishes the binary beside each model's weights;
;; no binary is committed.
;;
;; The float product ("linear"):
;;
;;     Y (rows, 8·panels) = X (rows, d_in) · W (d_in, 8·panels) + b
;;
;; Everything is float32 in the memory the page gives the module; addresses and strides are in bytes, so one
;; function serves every product of the forward pass:
;; - X's row r starts at x + r·x_stride (a head's Q is a slice of the full Q: x_stride = 4·d_model);
;; - W is read in panels of 8 columns: column 8p + c of row k is at w + p·w_panel + k·w_row + 4c. A weight
;;   matrix is packed once at load so each panel is contiguous (w_row = 32, w_panel = 32·d_in); a row-major
;;   matrix (V, or Kᵀ) is read in place (w_row = 4·its columns, w_panel = 32);
;; - b holds 8·panels biases (a zero row where the product has none); Y's row r starts at y + r·y_stride.
;; rows is a multiple of 4 (the caller pads the sentence): each step of the inner loop multiplies 4 rows of X
;; by one panel of W, 4 × 8 sums kept in 8 SIMD registers, so each value loaded is used 4 or 8 times.
(module
  (import "env" "memory" (memory 1))
  (func (export "linear")
    (param $x i32) (param $x_stride i32) (param $rows i32) (param $d_in i32)
    (param $w i32) (param $w_row i32) (param $w_panel i32) (param $panels i32)
    (param $b i32) (param $y i32) (param $y_stride i32)
    (local $panel i32) (local $row i32) (local $k i32) (local $k_end i32) (local $w_k i32) (local $w_start i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32) (local $out i32)
    (local $bias_left v128) (local $bias_right v128) (local $left v128) (local $right v128) (local $xk v128)
    ;; $sum<row><half>: row 0-3 of the block, the panel's left or right 4 columns
    (local $sum0l v128) (local $sum0r v128) (local $sum1l v128) (local $sum1r v128)
    (local $sum2l v128) (local $sum2r v128) (local $sum3l v128) (local $sum3r v128)
    (local.set $k_end (i32.shl (local.get $d_in) (i32.const 2)))
    (loop $panels_loop
      (local.set $w_start (i32.add (local.get $w) (i32.mul (local.get $panel) (local.get $w_panel))))
      (local.set $bias_left (v128.load (i32.add (local.get $b) (i32.shl (local.get $panel) (i32.const 5)))))
      (local.set $bias_right (v128.load offset=16 (i32.add (local.get $b) (i32.shl (local.get $panel) (i32.const 5)))))
      (local.set $row (i32.const 0))
      (loop $rows_loop
        (local.set $x0 (i32.add (local.get $x) (i32.mul (local.get $row) (local.get $x_stride))))
        (local.set $x1 (i32.add (local.get $x0) (local.get $x_stride)))
        (local.set $x2 (i32.add (local.get $x1) (local.get $x_stride)))
        (local.set $x3 (i32.add (local.get $x2) (local.get $x_stride)))
        (local.set $sum0l (local.get $bias_left)) (local.set $sum0r (local.get $bias_right))
        (local.set $sum1l (local.get $bias_left)) (local.set $sum1r (local.get $bias_right))
        (local.set $sum2l (local.get $bias_left)) (local.set $sum2r (local.get $bias_right))
        (local.set $sum3l (local.get $bias_left)) (local.set $sum3r (local.get $bias_right))
        (local.set $w_k (local.get $w_start))
        (local.set $k (i32.const 0))
        (loop $k_loop
          (local.set $left (v128.load (local.get $w_k)))
          (local.set $right (v128.load offset=16 (local.get $w_k)))
          (local.set $xk (v128.load32_splat (i32.add (local.get $x0) (local.get $k))))
          (local.set $sum0l (f32x4.add (local.get $sum0l) (f32x4.mul (local.get $xk) (local.get $left))))
          (local.set $sum0r (f32x4.add (local.get $sum0r) (f32x4.mul (local.get $xk) (local.get $right))))
          (local.set $xk (v128.load32_splat (i32.add (local.get $x1) (local.get $k))))
          (local.set $sum1l (f32x4.add (local.get $sum1l) (f32x4.mul (local.get $xk) (local.get $left))))
          (local.set $sum1r (f32x4.add (local.get $sum1r) (f32x4.mul (local.get $xk) (local.get $right))))
          (local.set $xk (v128.load32_splat (i32.add (local.get $x2) (local.get $k))))
          (local.set $sum2l (f32x4.add (local.get $sum2l) (f32x4.mul (local.get $xk) (local.get $left))))
          (local.set $sum2r (f32x4.add (local.get $sum2r) (f32x4.mul (local.get $xk) (local.get $right))))
          (local.set $xk (v128.load32_splat (i32.add (local.get $x3) (local.get $k))))
          (local.set $sum3l (f32x4.add (local.get $sum3l) (f32x4.mul (local.get $xk) (local.get $left))))
          (local.set $sum3r (f32x4.add (local.get $sum3r) (f32x4.mul (local.get $xk) (local.get $right))))
          (local.set $w_k (i32.add (local.get $w_k) (local.get $w_row)))
          (local.set $k (i32.add (local.get $k) (i32.const 4)))
          (br_if $k_loop (i32.lt_u (local.get $k) (local.get $k_end))))
        (local.set $out (i32.add (i32.add (local.get $y) (i32.mul (local.get $row) (local.get $y_stride)))
                                 (i32.shl (local.get $panel) (i32.const 5))))
        (v128.store (local.get $out) (local.get $sum0l))
        (v128.store offset=16 (local.get $out) (local.get $sum0r))
        (local.set $out (i32.add (local.get $out) (local.get $y_stride)))
        (v128.store (local.get $out) (local.get $sum1l))
        (v128.store offset=16 (local.get $out) (local.get $sum1r))
        (local.set $out (i32.add (local.get $out) (local.get $y_stride)))
        (v128.store (local.get $out) (local.get $sum2l))
        (v128.store offset=16 (local.get $out) (local.get $sum2r))
        (local.set $out (i32.add (local.get $out) (local.get $y_stride)))
        (v128.store (local.get $out) (local.get $sum3l))
        (v128.store offset=16 (local.get $out) (local.get $sum3r))
        (local.set $row (i32.add (local.get $row) (i32.const 4)))
        (br_if $rows_loop (i32.lt_u (local.get $row) (local.get $rows))))
      (local.set $panel (i32.add (local.get $panel) (i32.const 1)))
      (br_if $panels_loop (i32.lt_u (local.get $panel) (local.get $panels)))))

  ;; exp(x) for x <= 0, four at a time, as Cephes' expf: x = m·ln 2 + r with |r| <= ln 2 / 2, e^r by a degree-6
  ;; polynomial, 2^m put in the float's exponent; relative error about 1e-7 (float32's own). Below -87 the result
  ;; is e^-87 (1.6e-38), a weight of 0 for any purpose here.
  (func $exp (param $x v128) (result v128)
    (local $m v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.max (local.get $x) (f32x4.splat (f32.const -87))))
    (local.set $m (f32x4.nearest (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341)))))
    (local.set $r (f32x4.sub (f32x4.sub (local.get $x) (f32x4.mul (local.get $m) (f32x4.splat (f32.const 0.693359375))))
                             (f32x4.mul (local.get $m) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $p (f32x4.splat (f32.const 1.9875691500e-4)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.3981999507e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 8.3334519073e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 4.1665795894e-2))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.6666665459e-1))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 5.0000001201e-1))))
    (local.set $p (f32x4.add (f32x4.add (f32x4.mul (f32x4.mul (local.get $p) (local.get $r)) (local.get $r))
                                        (local.get $r)) (f32x4.splat (f32.const 1))))
    (f32x4.mul (local.get $p)
               (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $m)) (i32x4.splat (i32.const 127))) (i32.const 23))))

  ;; GELU in place on count floats at x (count a multiple of 4): x · (1 + erf(x/√2)) / 2, erf by Abramowitz &
  ;; Stegun 7.1.26 as models.minilm.encoder.erf_formula (|error| <= 1.5e-7).
  (func (export "gelu") (param $x i32) (param $count i32)
    (local $end i32) (local $v v128) (local $a v128) (local $t v128) (local $p v128) (local $erf v128)
    (local.set $end (i32.add (local.get $x) (i32.shl (local.get $count) (i32.const 2))))
    (loop $values
      (local.set $v (v128.load (local.get $x)))
      (local.set $a (f32x4.abs (f32x4.mul (local.get $v) (f32x4.splat (f32.const 0.70710678118654752)))))
      (local.set $t (f32x4.div (f32x4.splat (f32.const 1))
                               (f32x4.add (f32x4.splat (f32.const 1)) (f32x4.mul (f32x4.splat (f32.const 0.3275911)) (local.get $a)))))
      (local.set $p (f32x4.splat (f32.const 1.061405429)))
      (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const -1.453152027))))
      (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 1.421413741))))
      (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const -0.284496736))))
      (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $t)) (f32x4.splat (f32.const 0.254829592))))
      (local.set $p (f32x4.mul (local.get $p) (local.get $t)))
      ;; erf(|x|/√2) = 1 - p·e^(-a²) >= 0, given x's sign
      (local.set $erf (f32x4.sub (f32x4.splat (f32.const 1))
                                 (f32x4.mul (local.get $p) (call $exp (f32x4.neg (f32x4.mul (local.get $a) (local.get $a)))))))
      (local.set $erf (v128.or (local.get $erf) (v128.and (local.get $v) (v128.const i32x4 0x80000000 0x80000000 0x80000000 0x80000000))))
      (v128.store (local.get $x)
                  (f32x4.mul (f32x4.mul (f32x4.splat (f32.const 0.5)) (local.get $v))
                             (f32x4.add (f32x4.splat (f32.const 1)) (local.get $erf))))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (br_if $values (i32.lt_u (local.get $x) (local.get $end)))))

  ;; Rows 0 … n-1 of S (·, stride floats, stride a multiple of 4) to softmax(scale · S[i, 0 … n-1]), in place;
  ;; columns n … stride-1 to 0.
  (func (export "softmax") (param $s i32) (param $n i32) (param $stride i32) (param $scale f32)
    (call $softmax_masked (local.get $s) (local.get $n) (local.get $stride) (local.get $scale) (local.get $n) (i32.const 0)))

  ;; Rows 0 … rows-1 of S (·, stride floats, stride a multiple of 4), each over its first keys + r·step columns (row
  ;; r's keys; step 1 is the causal mask of queries at consecutive positions, step 0 gives every row the same keys):
  ;; S[r, j] to softmax(scale · S[r, 0 … keys + r·step - 1]) in place, the columns past them to 0.
  (func $softmax_masked (export "softmax_masked")
    (param $s i32) (param $rows i32) (param $stride i32) (param $scale f32) (param $keys i32) (param $step i32)
    (local $row i32) (local $end i32) (local $at i32) (local $largest f32) (local $total v128) (local $sum f32)
    (local $width i32) (local $last i32)
    (local.set $width (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $s) (i32.mul (local.get $rows) (local.get $width))))
    (local.set $row (local.get $s))
    (loop $rows
      (local.set $last (i32.add (local.get $row) (i32.shl (local.get $keys) (i32.const 2)))) ;; past this row's keys
      (local.set $largest (f32.load (local.get $row)))
      (local.set $at (i32.add (local.get $row) (i32.const 4)))
      (block $done
        (loop $columns
          (br_if $done (i32.ge_u (local.get $at) (local.get $last)))
          (local.set $largest (f32.max (local.get $largest) (f32.load (local.get $at))))
          (local.set $at (i32.add (local.get $at) (i32.const 4)))
          (br $columns)))
      ;; e^(scale·(s - largest)) four at a time (up to 3 past the keys, cleared below), then the columns past them to 0
      (local.set $at (local.get $row))
      (loop $exps
        (v128.store (local.get $at)
                    (call $exp (f32x4.mul (f32x4.sub (v128.load (local.get $at)) (f32x4.splat (local.get $largest)))
                                          (f32x4.splat (local.get $scale)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br_if $exps (i32.lt_u (local.get $at) (local.get $last))))
      (memory.fill (local.get $last) (i32.const 0) (i32.sub (i32.add (local.get $row) (local.get $width)) (local.get $last)))
      (local.set $total (v128.const f32x4 0 0 0 0))
      (local.set $at (local.get $row))
      (loop $sums
        (local.set $total (f32x4.add (local.get $total) (v128.load (local.get $at))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br_if $sums (i32.lt_u (local.get $at) (i32.add (local.get $row) (local.get $width)))))
      (local.set $sum (f32.add (f32.add (f32x4.extract_lane 0 (local.get $total)) (f32x4.extract_lane 1 (local.get $total)))
                               (f32.add (f32x4.extract_lane 2 (local.get $total)) (f32x4.extract_lane 3 (local.get $total)))))
      (local.set $total (f32x4.splat (local.get $sum)))
      (local.set $at (local.get $row))
      (loop $divides
        (v128.store (local.get $at) (f32x4.div (v128.load (local.get $at)) (local.get $total)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br_if $divides (i32.lt_u (local.get $at) (i32.add (local.get $row) (local.get $width)))))
      (local.set $keys (i32.add (local.get $keys) (local.get $step)))
      (local.set $row (i32.add (local.get $row) (local.get $width)))
      (br_if $rows (i32.lt_u (local.get $row) (local.get $end)))))

  ;; ---------------------------------------------------------------- quantized weights (SmolLM2's GGUF blocks)
  ;;
  ;;     Y (tokens, rows) = X (tokens, 32·blocks) · Wᵀ,   W (rows, 32·blocks) stored in blocks of 32 values
  ;;
  ;; as models/smollm/shipped.py lays them out, planar: a block's codes are contiguous (16 bytes for Q4_1, 32 for
  ;; Q8_0), row r's blocks are r·blocks … (r+1)·blocks - 1. The codes are read in place and turned into floats as
  ;; they are used; a block's scale d (and Q4_1's offset m) are float32 here, converted from the file's float16
  ;; once at load by llama.js. Within a block, sum_j x_j·(d·q_j + m) = d·sum_j x_j·q_j + m·sum_j x_j: the codes
  ;; meet x as whole numbers, and the block sums of x (xsum (tokens, blocks), computed once per X) carry m.

  ;; Row of Q4_1 codes at qs (16 bytes a block: value j's code is byte j's low nibble, value j+16's its high one)
  ;; · x, blocks blocks long, with their scales at d and offsets at m (float32, one a block)
  (func $q4_1_dot (param $x i32) (param $xsum i32) (param $d i32) (param $m i32) (param $qs i32) (param $blocks i32)
    (result f32)
    (local $end i32) (local $codes v128) (local $half v128) (local $left v128) (local $right v128) (local $sums v128)
    (local $offsets f32)
    (local.set $end (i32.add (local.get $d) (i32.shl (local.get $blocks) (i32.const 2))))
    (local.set $sums (v128.const f32x4 0 0 0 0))
    (loop $block
      (local.set $codes (v128.load (local.get $qs)))
      ;; values 0 … 15: the low nibbles, 4 at a time to float; the left and right sums take turns
      (local.set $half (i16x8.extend_low_i8x16_u (v128.and (local.get $codes) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
      (local.set $left (f32x4.mul (v128.load (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half)))))
      (local.set $right (f32x4.mul (v128.load offset=16 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half)))))
      (local.set $half (i16x8.extend_high_i8x16_u (v128.and (local.get $codes) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=32 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=48 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))))
      ;; values 16 … 31: the high nibbles
      (local.set $codes (i8x16.shr_u (local.get $codes) (i32.const 4)))
      (local.set $half (i16x8.extend_low_i8x16_u (local.get $codes)))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=64 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=80 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))))
      (local.set $half (i16x8.extend_high_i8x16_u (local.get $codes)))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=96 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=112 (local.get $x)) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))))
      (local.set $sums (f32x4.add (local.get $sums) (f32x4.mul (f32x4.add (local.get $left) (local.get $right))
                                                                (v128.load32_splat (local.get $d)))))
      (local.set $offsets (f32.add (local.get $offsets) (f32.mul (f32.load (local.get $m)) (f32.load (local.get $xsum)))))
      (local.set $x (i32.add (local.get $x) (i32.const 128)))
      (local.set $xsum (i32.add (local.get $xsum) (i32.const 4)))
      (local.set $m (i32.add (local.get $m) (i32.const 4)))
      (local.set $qs (i32.add (local.get $qs) (i32.const 16)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br_if $block (i32.lt_u (local.get $d) (local.get $end))))
    (f32.add (call $lanes (local.get $sums)) (local.get $offsets)))

;; The same row · 4 tokens' x at once (x, x + x_stride, …; their block sums at xsum, xsum + sums_stride, …): each
  ;; block's codes become floats (w0 … w7) once for the 4. The 4 results go to y, y + y_stride, …, each summed in the
  ;; order $q4_1_dot sums it (the even vectors' products into a left sum, the odd into a right one, then left +
  ;; right), so a token's result does not depend on the tokens beside it: a prompt read at once gives the numbers
  ;; it gives read token by token.
  (func $q4_1_dot4 (param $x i32) (param $x_stride i32) (param $xsum i32) (param $sums_stride i32)
    (param $d i32) (param $m i32) (param $qs i32) (param $blocks i32) (param $y i32) (param $y_stride i32)
    (local $end i32) (local $codes v128) (local $half v128) (local $scale v128) (local $offset f32) (local $at i32)
    (local $w0 v128) (local $w1 v128) (local $w2 v128) (local $w3 v128) (local $w4 v128) (local $w5 v128) (local $w6 v128) (local $w7 v128)
    (local $sums0 v128) (local $sums1 v128) (local $sums2 v128) (local $sums3 v128)
    (local $offsets0 f32) (local $offsets1 f32) (local $offsets2 f32) (local $offsets3 f32)
    (local.set $end (i32.add (local.get $d) (i32.shl (local.get $blocks) (i32.const 2))))
    (loop $block
      (local.set $codes (v128.load (local.get $qs)))
      (local.set $half (i16x8.extend_low_i8x16_u (v128.and (local.get $codes) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
      (local.set $w0 (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))
      (local.set $w1 (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))
      (local.set $half (i16x8.extend_high_i8x16_u (v128.and (local.get $codes) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
      (local.set $w2 (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))
      (local.set $w3 (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))
      (local.set $codes (i8x16.shr_u (local.get $codes) (i32.const 4)))
      (local.set $half (i16x8.extend_low_i8x16_u (local.get $codes)))
      (local.set $w4 (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))
      (local.set $w5 (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))
      (local.set $half (i16x8.extend_high_i8x16_u (local.get $codes)))
      (local.set $w6 (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $half))))
      (local.set $w7 (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $half))))
      (local.set $scale (v128.load32_splat (local.get $d)))
      (local.set $offset (f32.load (local.get $m)))
      (local.set $at (local.get $x))
      (local.set $sums0 (f32x4.add (local.get $sums0) (f32x4.mul (f32x4.add
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load (local.get $at)) (local.get $w0))
                                                    (f32x4.mul (v128.load offset=32 (local.get $at)) (local.get $w2)))
                                        (f32x4.mul (v128.load offset=64 (local.get $at)) (local.get $w4)))
                            (f32x4.mul (v128.load offset=96 (local.get $at)) (local.get $w6)))
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $at)) (local.get $w1))
                                                    (f32x4.mul (v128.load offset=48 (local.get $at)) (local.get $w3)))
                                        (f32x4.mul (v128.load offset=80 (local.get $at)) (local.get $w5)))
                            (f32x4.mul (v128.load offset=112 (local.get $at)) (local.get $w7))))
                 (local.get $scale))))
      (local.set $offsets0 (f32.add (local.get $offsets0) (f32.mul (local.get $offset) (f32.load (local.get $xsum)))))
      (local.set $at (i32.add (local.get $at) (local.get $x_stride)))
      (local.set $sums1 (f32x4.add (local.get $sums1) (f32x4.mul (f32x4.add
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load (local.get $at)) (local.get $w0))
                                                    (f32x4.mul (v128.load offset=32 (local.get $at)) (local.get $w2)))
                                        (f32x4.mul (v128.load offset=64 (local.get $at)) (local.get $w4)))
                            (f32x4.mul (v128.load offset=96 (local.get $at)) (local.get $w6)))
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $at)) (local.get $w1))
                                                    (f32x4.mul (v128.load offset=48 (local.get $at)) (local.get $w3)))
                                        (f32x4.mul (v128.load offset=80 (local.get $at)) (local.get $w5)))
                            (f32x4.mul (v128.load offset=112 (local.get $at)) (local.get $w7))))
                 (local.get $scale))))
      (local.set $offsets1 (f32.add (local.get $offsets1) (f32.mul (local.get $offset) (f32.load (i32.add (local.get $xsum) (local.get $sums_stride))))))
      (local.set $at (i32.add (local.get $at) (local.get $x_stride)))
      (local.set $sums2 (f32x4.add (local.get $sums2) (f32x4.mul (f32x4.add
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load (local.get $at)) (local.get $w0))
                                                    (f32x4.mul (v128.load offset=32 (local.get $at)) (local.get $w2)))
                                        (f32x4.mul (v128.load offset=64 (local.get $at)) (local.get $w4)))
                            (f32x4.mul (v128.load offset=96 (local.get $at)) (local.get $w6)))
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $at)) (local.get $w1))
                                                    (f32x4.mul (v128.load offset=48 (local.get $at)) (local.get $w3)))
                                        (f32x4.mul (v128.load offset=80 (local.get $at)) (local.get $w5)))
                            (f32x4.mul (v128.load offset=112 (local.get $at)) (local.get $w7))))
                 (local.get $scale))))
      (local.set $offsets2 (f32.add (local.get $offsets2) (f32.mul (local.get $offset) (f32.load (i32.add (local.get $xsum) (i32.shl (local.get $sums_stride) (i32.const 1)))))))
      (local.set $at (i32.add (local.get $at) (local.get $x_stride)))
      (local.set $sums3 (f32x4.add (local.get $sums3) (f32x4.mul (f32x4.add
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load (local.get $at)) (local.get $w0))
                                                    (f32x4.mul (v128.load offset=32 (local.get $at)) (local.get $w2)))
                                        (f32x4.mul (v128.load offset=64 (local.get $at)) (local.get $w4)))
                            (f32x4.mul (v128.load offset=96 (local.get $at)) (local.get $w6)))
                 (f32x4.add (f32x4.add (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $at)) (local.get $w1))
                                                    (f32x4.mul (v128.load offset=48 (local.get $at)) (local.get $w3)))
                                        (f32x4.mul (v128.load offset=80 (local.get $at)) (local.get $w5)))
                            (f32x4.mul (v128.load offset=112 (local.get $at)) (local.get $w7))))
                 (local.get $scale))))
      (local.set $offsets3 (f32.add (local.get $offsets3) (f32.mul (local.get $offset) (f32.load (i32.add (local.get $xsum) (i32.mul (local.get $sums_stride) (i32.const 3)))))))
      (local.set $x (i32.add (local.get $x) (i32.const 128)))
      (local.set $xsum (i32.add (local.get $xsum) (i32.const 4)))
      (local.set $m (i32.add (local.get $m) (i32.const 4)))
      (local.set $qs (i32.add (local.get $qs) (i32.const 16)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br_if $block (i32.lt_u (local.get $d) (local.get $end))))
    (f32.store (local.get $y) (f32.add (call $lanes (local.get $sums0)) (local.get $offsets0)))
    (local.set $y (i32.add (local.get $y) (local.get $y_stride)))
    (f32.store (local.get $y) (f32.add (call $lanes (local.get $sums1)) (local.get $offsets1)))
    (local.set $y (i32.add (local.get $y) (local.get $y_stride)))
    (f32.store (local.get $y) (f32.add (call $lanes (local.get $sums2)) (local.get $offsets2)))
    (local.set $y (i32.add (local.get $y) (local.get $y_stride)))
    (f32.store (local.get $y) (f32.add (call $lanes (local.get $sums3)) (local.get $offsets3))))

  ;; Row of Q8_0 codes at qs (32 signed bytes a block) · x, with their scales at d (float32, one a block)
  (func $q8_0_dot (param $x i32) (param $d i32) (param $qs i32) (param $blocks i32) (result f32)
    (local $end i32) (local $codes v128) (local $half v128) (local $left v128) (local $right v128) (local $sums v128)
    (local.set $end (i32.add (local.get $d) (i32.shl (local.get $blocks) (i32.const 2))))
    (local.set $sums (v128.const f32x4 0 0 0 0))
    (loop $block
      (local.set $codes (v128.load (local.get $qs)))
      (local.set $half (i16x8.extend_low_i8x16_s (local.get $codes)))
      (local.set $left (f32x4.mul (v128.load (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $half)))))
      (local.set $right (f32x4.mul (v128.load offset=16 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $half)))))
      (local.set $half (i16x8.extend_high_i8x16_s (local.get $codes)))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=32 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=48 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $half))))))
      (local.set $codes (v128.load offset=16 (local.get $qs)))
      (local.set $half (i16x8.extend_low_i8x16_s (local.get $codes)))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=64 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=80 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $half))))))
      (local.set $half (i16x8.extend_high_i8x16_s (local.get $codes)))
      (local.set $left (f32x4.add (local.get $left) (f32x4.mul (v128.load offset=96 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $half))))))
      (local.set $right (f32x4.add (local.get $right) (f32x4.mul (v128.load offset=112 (local.get $x)) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $half))))))
      (local.set $sums (f32x4.add (local.get $sums) (f32x4.mul (f32x4.add (local.get $left) (local.get $right))
                                                                (v128.load32_splat (local.get $d)))))
      (local.set $x (i32.add (local.get $x) (i32.const 128)))
      (local.set $qs (i32.add (local.get $qs) (i32.const 32)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br_if $block (i32.lt_u (local.get $d) (local.get $end))))
    (call $lanes (local.get $sums)))

  ;; the sum of a vector's four lanes, (0 + 1) + (2 + 3)
  (func $lanes (param $v v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
             (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; Y = X · Wᵀ for Q4_1 W (rows, 32·blocks): X (tokens, 32·blocks), its block sums xsum (tokens, blocks), Y
  ;; (tokens, rows), all float32 and row-major. Row by row of W, every token, so a row's codes are read from memory
  ;; once; 4 tokens at a time share each block's conversion to floats.
  (func (export "q4_1_matmul") (param $x i32) (param $xsum i32) (param $tokens i32)
    (param $d i32) (param $m i32) (param $qs i32) (param $rows i32) (param $blocks i32) (param $y i32)
    (local $row i32) (local $token i32) (local $row_d i32) (local $row_m i32) (local $row_qs i32) (local $row_bytes i32)
    (local.set $row_bytes (i32.shl (local.get $blocks) (i32.const 2)))
    (loop $rows
      (local.set $row_d (i32.add (local.get $d) (i32.mul (local.get $row) (local.get $row_bytes))))
      (local.set $row_m (i32.add (local.get $m) (i32.mul (local.get $row) (local.get $row_bytes))))
      (local.set $row_qs (i32.add (local.get $qs) (i32.mul (local.get $row) (i32.shl (local.get $blocks) (i32.const 4)))))
      (local.set $token (i32.const 0))
      (block $fours_done
        (loop $fours
          (br_if $fours_done (i32.gt_u (i32.add (local.get $token) (i32.const 4)) (local.get $tokens)))
          (call $q4_1_dot4 (i32.add (local.get $x) (i32.mul (local.get $token) (i32.shl (local.get $blocks) (i32.const 7))))
                           (i32.shl (local.get $blocks) (i32.const 7))
                           (i32.add (local.get $xsum) (i32.mul (local.get $token) (local.get $row_bytes))) (local.get $row_bytes)
                           (local.get $row_d) (local.get $row_m) (local.get $row_qs) (local.get $blocks)
                           (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $token) (local.get $rows)) (local.get $row)) (i32.const 2)))
                           (i32.shl (local.get $rows) (i32.const 2)))
          (local.set $token (i32.add (local.get $token) (i32.const 4)))
          (br $fours)))
      (block $ones_done
        (loop $ones
          (br_if $ones_done (i32.ge_u (local.get $token) (local.get $tokens)))
          (f32.store (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $token) (local.get $rows)) (local.get $row)) (i32.const 2)))
                     (call $q4_1_dot (i32.add (local.get $x) (i32.mul (local.get $token) (i32.shl (local.get $blocks) (i32.const 7))))
                                     (i32.add (local.get $xsum) (i32.mul (local.get $token) (local.get $row_bytes)))
                                     (local.get $row_d) (local.get $row_m) (local.get $row_qs) (local.get $blocks)))
          (local.set $token (i32.add (local.get $token) (i32.const 1)))
          (br $ones)))
      (local.set $row (i32.add (local.get $row) (i32.const 1)))
      (br_if $rows (i32.lt_u (local.get $row) (local.get $rows)))))

    ;; Y = X · Wᵀ for Q8_0 W (rows, 32·blocks), as q4_1_matmul (no block sums: Q8_0 has no offset)
  (func (export "q8_0_matmul") (param $x i32) (param $tokens i32)
    (param $d i32) (param $qs i32) (param $rows i32) (param $blocks i32) (param $y i32)
    (local $row i32) (local $token i32)
    (loop $rows
      (local.set $token (i32.const 0))
      (loop $tokens
        (f32.store (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $token) (local.get $rows)) (local.get $row)) (i32.const 2)))
                   (call $q8_0_dot (i32.add (local.get $x) (i32.mul (local.get $token) (i32.shl (local.get $blocks) (i32.const 7))))
                                   (i32.add (local.get $d) (i32.mul (local.get $row) (i32.shl (local.get $blocks) (i32.const 2))))
                                   (i32.add (local.get $qs) (i32.mul (local.get $row) (i32.shl (local.get $blocks) (i32.const 5))))
                                   (local.get $blocks)))
        (local.set $token (i32.add (local.get $token) (i32.const 1)))
        (br_if $tokens (i32.lt_u (local.get $token) (local.get $tokens))))
      (local.set $row (i32.add (local.get $row) (i32.const 1)))
      (br_if $rows (i32.lt_u (local.get $row) (local.get $rows)))))
)
