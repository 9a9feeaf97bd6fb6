function dump_rounds(multiclass_dir, dataset_name, run, out_prefix, seed, n_rounds, budget)
% dump_rounds: per-round output of LIBOKL's ten multiclass learners on one permutation.
%
%   dump_rounds(multiclass_dir, dataset_name, run, out_prefix, seed, n_rounds, budget)
%
% n_rounds (optional, default all): run only the first n_rounds of the permutation (the
% learners get ID(1:n_rounds), so every rate is over those rounds).  budget (optional,
% default Experiment.m's 200): options.Budget, e.g. 20 so that a short prefix already
% exercises every budget maintenance (FOGD's D = round(4*budget), NOGD's rank
% round(0.2*budget) follow it as in Experiment.m).
%
% Runs each learner of <multiclass_dir> (unmodified files) on ID_list(run,:) of
% data/<dataset_name>.mat with Experiment.m's options, except options.t_tick = 1 so that
% the learner's own outputs `mistakes` (err_count/t) and `SVs` are recorded at every round.
% The folder shims/ (added to the front of the path) shadows three built-ins without
% changing their results, to log what the learners do not return:
%   max      -> the score vector V of each round's prediction [V_max, idx_max] = max(V)
%   randperm -> RBP's removal draws perm_t(1)
%   randn    -> FOGD's Gaussian matrix u (rounded to multiples of 1/1024, see shims/randn.m)
% Writes, per learner L (its MATLAB file name):
%   <out_prefix>_<L>_rounds.csv : t, id, y, scores V(1..K) (%.17g), cumulative mistakes,
%                                  support size after the round
%   <out_prefix>_RBP_draws.csv   : the removal index idx (1..B) of each budget-full mistake
%   <out_prefix>_FouGD_u.csv     : round(1024*randn) for u (d x D), u = (1/sigma)*that/1024
% Random state: rand('state', seed + run); randn('state', seed + run) before each learner,
% as run_libokl.m does, so RBP's removals equal those of run_libokl.m's run `run`.
global OKL_TRACE_K OKL_TRACE_SCORES OKL_TRACE_LEARNER OKL_TRACE_DRAWS OKL_TRACE_GAUSS
if nargin < 5, seed = 0; end
if nargin < 6, n_rounds = 0; end
if nargin < 7, budget = 200; end
here = pwd;
shims = fullfile(fileparts(mfilename('fullpath')), 'shims');
cd(multiclass_dir);
cleanup = onCleanup(@() cd(here));
warning('off', 'Octave:shadowed-function');
addpath(shims);
S = load(fullfile('data', [dataset_name '.mat']));
data = S.data; ID_list = S.ID_list;
[n,d]= size(data);
Y=data(:,1);
X=data(:,2:end);
options.eta_fou=0.005;
options.rou_f=4;
options.eta    =  0.5;
options.Budget=budget;            % Experiment.m: 200
options.k=0.2;
options.sigma=8;
options.n_label=max(Y);
options.t_tick=1;                 % Experiment.m: round(n/10); 1 records every round
options.lambda =  10^(-5);
options.gamma  =  inf;
options.C_BPAs = 1;
K = options.n_label;
names = {'perceptron','ogd','FouGD','NyGD','RBP','forgetron','projectron','proplus','BPAs','BOGD'};
ID = ID_list(run,:);
if n_rounds > 0, ID = ID(1:n_rounds); end
T = numel(ID);
for j = 1:numel(names)
    rand('state', seed + run); randn('state', seed + run);
    OKL_TRACE_K = K; OKL_TRACE_SCORES = zeros(0, K); OKL_TRACE_LEARNER = names{j};
    OKL_TRACE_DRAWS = zeros(0, 1); OKL_TRACE_GAUSS = [];
    f = str2func(names{j});
    [err_count, run_time, mistakes, mistakes_idx, SVs, size_SV, TMs] = f(Y, X, ID, options);
    OKL_TRACE_LEARNER = '';
    if size(OKL_TRACE_SCORES, 1) ~= T, error('%s: %d score rows for %d rounds', names{j}, size(OKL_TRACE_SCORES,1), T); end
    cum = round(mistakes(:) .* (1:T)');
    M = [(1:T)', ID(:), Y(ID), OKL_TRACE_SCORES, cum, SVs(:)];
    fid = fopen(sprintf('%s_%s_rounds.csv', out_prefix, names{j}), 'w');
    hdr = sprintf(',s%d', 1:K);
    fprintf(fid, 't,id,y%s,cum_mistakes,support_size\n', hdr);
    fmt = ['%d,%d,%d' repmat(',%.17g', 1, K) ',%d,%d\n'];
    fprintf(fid, fmt, M');
    fclose(fid);
    if strcmp(names{j}, 'RBP')
        dlmwrite(sprintf('%s_RBP_draws.csv', out_prefix), OKL_TRACE_DRAWS, 'precision', '%d');
    end
    if strcmp(names{j}, 'FouGD')
        dlmwrite(sprintf('%s_FouGD_u.csv', out_prefix), round(OKL_TRACE_GAUSS * 1024), 'precision', '%d');
    end
    printf('%s %s: mistake rate %.4f, SVs %d, %.1f s\n', dataset_name, names{j}, err_count, size_SV, run_time);
    fflush(stdout);
end
end
