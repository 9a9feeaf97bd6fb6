algs = {'M_PerceptronM','M_PerceptronU','M_PerceptronS','M_PA','M_PA1','M_PA2'};
for i = 0:1
  X = load(sprintf('X%d.txt',i)); Y = load(sprintf('y%d.txt',i));
  K = 4;
  for a = 1:numel(algs)
    model.W = zeros(K, size(X,2)); model.C = 0.3;
    f = str2func(algs{a});
    P = zeros(numel(Y),1);
    for t = 1:numel(Y)
      [model, P(t), l] = f(Y(t), X(t,:), model);
    end
    dlmwrite(sprintf('out_%s_%d_pred.txt', algs{a}, i), P, 'precision', 17);
    dlmwrite(sprintf('out_%s_%d_W.txt', algs{a}, i), model.W, 'precision', 17);
  end
end
