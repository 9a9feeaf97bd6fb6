X = load('X.txt')'; Y = load('y.txt')'; K = 4;
hp = struct('type','rbf','gamma',0.5);
m0 = model_init(@compute_kernel, hp); m0.n_cla = K; m0.step = 1e9;
m = k_perceptron_multi_train(X, Y, m0);
dlmwrite('perc_pred.txt', m.pred', 'precision', 17); dlmwrite('perc_S.txt', m.S, 'precision', 17); dlmwrite('perc_beta.txt', m.beta', 'precision', 17);
for upd = 1:2
  mm = m0; mm.update = upd; mm.C = 0.3;
  m = k_pa_multi_train(X, Y, mm);
  dlmwrite(sprintf('pa%d_pred.txt',upd), m.pred', 'precision', 17); dlmwrite(sprintf('pa%d_beta.txt',upd), full(m.beta)', 'precision', 17);
end
for eta = [0.05 0.2]
  mm = m0; mm.eta = eta;
  m = k_projectron2_multi_train(X, Y, mm);
  dlmwrite(sprintf('pp_%g_pred.txt',eta), m.pred', 'precision', 17); dlmwrite(sprintf('pp_%g_S.txt',eta), m.S, 'precision', 17);
  dlmwrite(sprintf('pp_%g_beta.txt',eta), full(m.beta)', 'precision', 17);
end
