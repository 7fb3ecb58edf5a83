-- Macros every statistic may use. 95% Wilson score interval of k successes in n trials:
-- scipy's binomtest(k, n).proportion_ci(method='wilson') term for term (Newcombe 1998), with
-- its z, the 97.5% normal quantile 1.959963984540054 (z² = 3.8414588206941254), so that the
-- bounds here and analysis.inference.wilson agree to the last digit (tests/test_analysis.py).
create or replace macro wilson_lo(k, n) as
    case when n = 0 then null when k = 0 then 0.0
         else (2::double * n * (k / n) + 3.8414588206941254::double) / (2 * (n + 3.8414588206941254::double))
              - 1.959963984540054::double / (2 * (n + 3.8414588206941254::double))
                * sqrt(4::double * n * (k / n) * (1 - k / n) + 3.8414588206941254::double) end;
create or replace macro wilson_hi(k, n) as
    case when n = 0 then null when k = n then 1.0
         else (2::double * n * (k / n) + 3.8414588206941254::double) / (2 * (n + 3.8414588206941254::double))
              + 1.959963984540054::double / (2 * (n + 3.8414588206941254::double))
                * sqrt(4::double * n * (k / n) * (1 - k / n) + 3.8414588206941254::double) end;
