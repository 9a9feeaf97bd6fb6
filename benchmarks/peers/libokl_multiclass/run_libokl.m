function run_libokl(multiclass_dir, dataset_name, runs, out_csv, seed)
% run_libokl: LIBOKL's multiclass learners under Experiment.m's protocol.
%
%   run_libokl(multiclass_dir, dataset_name, runs, out_csv, seed)
%
% multiclass_dir: the folder multiclass/ of jingcoco/Online-Kernel-Learning (unmodified);
% dataset_name:   'dna' or 'satimage' (loads <multiclass_dir>/data/<name>.mat, which holds
%                 `data` (label first, 1..K) and `ID_list` (20 permutations, 1-based));
% runs:           rows of ID_list to run (Experiment.m runs 1:2; the paper reports 20);
% out_csv:        one line per (run, learner) is appended:
%                 dataset,run,learner,mistake_rate,support_size,seconds
% seed:           rand('state',seed) and randn('state',seed) before each run (Experiment.m
%                 seeds nothing; MATLAB starts from a fixed generator state, Octave from a
%                 random one, so the seed is ours).  RBP (randperm) and FOGD (randn) draw
%                 from these generators.
%
% The options are copied verbatim from Experiment.m (lines 19-29); the learners are called
% in Experiment.m's order (lines 35-113) with the same arguments.  Nothing else of
% Experiment.m is run (its figures need a display; its table is reproduced from the CSV).
if nargin < 5, seed = 0; end
here = pwd;
cd(multiclass_dir);
cleanup = onCleanup(@() cd(here));
S = load(fullfile('data', [dataset_name '.mat']));
data = S.data; ID_list = S.ID_list;
[n,d]= size(data);
Y=data(:,1);
X=data(:,2:end);
%% options (Experiment.m lines 19-29, verbatim)
options.eta_fou=0.005;
options.rou_f=4;
options.eta    =  0.5;%learning rate
options.Budget=200;     %%budget....D
options.k=0.2;
options.sigma=8;     %sigma: kernel width
options.n_label=max(Y);    %the number of possible label set
options.t_tick=round(n/10);   %the number of possible label set
options.lambda =  10^(-5);
options.gamma  =  inf;
options.C_BPAs = 1;
names = {'perceptron','ogd','FouGD','NyGD','RBP','forgetron','projectron','proplus','BPAs','BOGD'};
fid = fopen(out_csv, 'a');
for i = runs
    ID = ID_list(i,:);
    for j = 1:numel(names)
        rand('state', seed + i); randn('state', seed + i);
        f = str2func(names{j});
        [err_count, run_time, mistakes, mistakes_idx, SVs, size_SV, TMs] = f(Y, X, ID, options);
        fprintf(fid, '%s,%d,%s,%.10g,%d,%.4f\n', dataset_name, i, names{j}, err_count, size_SV, run_time);
        fflush(fid);
        printf('%s run %d %-10s mistake rate %.4f  SVs %4d  %.2f s\n', dataset_name, i, names{j}, err_count, size_SV, run_time);
        fflush(stdout);
    end
end
fclose(fid);
end
